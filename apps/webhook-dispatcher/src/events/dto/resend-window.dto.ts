import { IsISO8601, IsOptional, IsUUID } from 'class-validator';

export class ResendWindowDto {
  @IsISO8601({ strict: true })
  from: string;

  @IsISO8601({ strict: true })
  to: string;

  @IsOptional()
  @IsUUID()
  integrationId?: string;
}
