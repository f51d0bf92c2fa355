import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';

export const CORRECTION_STATUSES = ['PENDING_APPROVAL', 'EXECUTED', 'REJECTED', 'EXPIRED'] as const;
export type CorrectionStatus = (typeof CORRECTION_STATUSES)[number];

export class ListCorrectionsQuery {
  @ApiPropertyOptional({ enum: CORRECTION_STATUSES, example: 'PENDING_APPROVAL' })
  @OptionalField()
  @IsIn(CORRECTION_STATUSES)
  status?: CorrectionStatus;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, example: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}
