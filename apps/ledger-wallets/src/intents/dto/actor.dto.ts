import { IsOptional, IsString, MaxLength } from 'class-validator';

/** Who moves an intent, as the orchestrator saw them (the ledger only sees the orchestrator's own address). */
export class ActorDto {
  /** acting user id (customer, agent, operator) or `system:<job>` */
  @IsString()
  @MaxLength(200)
  id: string;

  /** the end client's IP address */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  ip?: string;

  /** the end client's user agent */
  @IsOptional()
  @IsString()
  @MaxLength(512)
  userAgent?: string;
}
