import { IsISO8601, IsObject, IsOptional, IsString, IsUUID, Matches } from 'class-validator';

/** An event to deliver (the partners service's producer path, also used by tests and operators). */
export class EnqueueEventDto {
  @IsUUID()
  integrationId: string;

  @IsString()
  @Matches(/^[a-z][a-z0-9_.]{0,99}$/)
  event: string;

  /** UUID v4, the receiver's idempotency key */
  @IsUUID('4')
  id: string;

  /** defaults to now */
  @IsOptional()
  @IsISO8601({ strict: true })
  createdAt?: string;

  @IsObject()
  data: Record<string, unknown>;
}
