import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Reserved for a change under way; filled in before it ships. */
export class IntentBoundOtp1764600000000 implements MigrationInterface {
  name = 'IntentBoundOtp1764600000000';

  async up(_q: QueryRunner): Promise<void> {}

  async down(_q: QueryRunner): Promise<void> {}
}
