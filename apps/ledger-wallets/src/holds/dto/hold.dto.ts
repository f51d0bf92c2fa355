import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsMoney } from '../../intents/dto/money';
import { HOLD_STATUSES, type HoldStatus } from '../hold-view';

/** `POST /v1/internal/holds`: the operator whose token comes with the call places it. */
export class PlaceHoldDto {
  @ApiProperty({
    format: 'uuid',
    example: '0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d',
    description: 'the same key and body again answer the same hold',
  })
  @IsUUID('4')
  idempotencyKey: string;

  @ApiProperty({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  @IsUUID()
  accountId: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 25_000, description: 'smallest currency unit' })
  @IsMoney()
  amount: number;

  @ApiProperty({ minLength: 3, maxLength: 500, example: 'Suspected account takeover, case 4411' })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;

  @ApiPropertyOptional({
    maxLength: 100,
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
    description: 'who asked for it (the maker of a maker-checker request), when not the operator of the token',
  })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  requestedBy?: string;
}

/** `POST /v1/internal/holds/:id/release`. */
export class ReleaseHoldDto {
  @ApiProperty({
    format: 'uuid',
    example: '7a92c1b3-0c1b-4f9a-a6e4-8a3f5c1e7b2d',
    description: 'the same key again answers the released hold',
  })
  @IsUUID('4')
  idempotencyKey: string;

  @ApiProperty({ minLength: 3, maxLength: 500, example: 'Case 4411 closed: the customer confirmed the payments' })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;

  @ApiPropertyOptional({
    maxLength: 100,
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
    description: 'who asked for the release, when not the operator of the token',
  })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  requestedBy?: string;
}

export class ListHoldsQuery {
  @ApiPropertyOptional({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  @OptionalField()
  @IsUUID()
  accountId?: string;

  @ApiPropertyOptional({ enum: HOLD_STATUSES, example: 'ACTIVE' })
  @OptionalField()
  @IsIn(HOLD_STATUSES)
  status?: HoldStatus;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, example: 50 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}
