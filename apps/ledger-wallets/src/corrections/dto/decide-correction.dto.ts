import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';

/** `POST /v1/internal/corrections/:id/approve`: the checker (bearer of the operator token) may say why. */
export class ApproveCorrectionDto {
  @ApiPropertyOptional({ example: 'Checked against the bank statement of 2026-03-02', maxLength: 500 })
  @OptionalField()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

/** `POST /v1/internal/corrections/:id/reject`: a refusal always says why. */
export class RejectCorrectionDto {
  @ApiProperty({ example: 'The bank statement shows a single credit', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

/** `POST /v1/internal/corrections/:id/expire`: why the calling service ends it (e.g. the engine's request expired). */
export class ExpireCorrectionDto {
  @ApiProperty({ example: 'Approval request 0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d expired undecided', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}
