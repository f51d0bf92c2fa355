import { IsDefined, IsString, MaxLength } from 'class-validator';
import { OptionalField } from '@mm/errors';

/** Who moves an intent, as the orchestrator saw them (the ledger only sees the orchestrator's own address). */
export class ActorDto {
  /** acting user id (customer, agent, operator) or `system:<job>` */
  @IsDefined()
  @IsString()
  @MaxLength(200)
  id: string;

  /** the end client's IP address */
  @OptionalField()
  @IsString()
  @MaxLength(64)
  ip?: string;

  /** the end client's user agent */
  @OptionalField()
  @IsString()
  @MaxLength(512)
  userAgent?: string;
}
