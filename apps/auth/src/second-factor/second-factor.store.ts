import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRows } from '@mm/platform';

/** A user's TOTP enrolment (auth.second_factors). */
export interface Enrolment {
  userId: string;
  /** the sealed secret (TotpSecretBox) */
  sealedSecret: Buffer;
  /** the time step of the last code accepted */
  lastStep: number;
  enrolledAt: Date;
}

interface Row {
  user_id: string;
  secret: Buffer;
  last_step: string;
  enrolled_at: Date;
}

const toEnrolment = (row: Row): Enrolment => ({
  userId: row.user_id,
  sealedSecret: row.secret,
  lastStep: Number(row.last_step),
  enrolledAt: row.enrolled_at,
});

/** One TOTP enrolment per user; the last accepted step only moves forward. */
@Injectable()
export class SecondFactorStore {
  constructor(private readonly db: DataSource) {}

  async find(userId: string): Promise<Enrolment | undefined> {
    const rows = await queryRows<Row>(
      this.db,
      `SELECT user_id, secret, last_step, enrolled_at FROM auth.second_factors WHERE user_id = $1`,
      [userId],
    );
    return rows[0] && toEnrolment(rows[0]);
  }

  /** Enrols the user unless already enrolled; false when an enrolment was there first. */
  async enrol(userId: string, sealedSecret: Buffer, step: number, manager: EntityManager | DataSource = this.db): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `INSERT INTO auth.second_factors (user_id, secret, last_step) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
      [userId, sealedSecret, step],
    );
    return rows.length > 0;
  }

  /**
   * Records `step` as used, only if it is later than every step used before (one statement: of two
   * requests with the same code, one wins). False: this step, or a later one, was already used.
   */
  async useStep(userId: string, step: number): Promise<boolean> {
    const rows = await queryRows(
      this.db,
      `UPDATE auth.second_factors SET last_step = $2 WHERE user_id = $1 AND last_step < $2 RETURNING user_id`,
      [userId, step],
    );
    return rows.length > 0;
  }

  /** Removes the enrolment; true when there was one. */
  async remove(userId: string, manager: EntityManager | DataSource = this.db): Promise<boolean> {
    const rows = await queryRows(manager, `DELETE FROM auth.second_factors WHERE user_id = $1 RETURNING user_id`, [userId]);
    return rows.length > 0;
  }
}
