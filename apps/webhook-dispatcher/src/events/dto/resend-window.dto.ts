import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

export class ResendWindowDto {
  @ApiProperty({ description: 'start of the window (inclusive)', format: 'date-time', example: '2026-03-01T00:00:00Z' })
  @IsInstant()
  from: string;

  @ApiProperty({ description: 'end of the window (exclusive), after `from`', format: 'date-time', example: '2026-03-02T00:00:00Z' })
  @IsInstant()
  to: string;

  @ApiPropertyOptional({ description: "only this integration's events", format: 'uuid', example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  @OptionalField()
  @IsUUID()
  integrationId?: string;

  @ApiPropertyOptional({
    description: 'continue a truncated answer: the last id of its `eventIds` (same window and integration)',
    format: 'uuid',
    example: '0b5f2a7e-3c1d-4e8f-9a6b-2d4c8e1f3a5b',
  })
  @OptionalField()
  @IsUUID()
  after?: string;
}
