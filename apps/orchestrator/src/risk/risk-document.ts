import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min, ValidateNested } from 'class-validator';
import type { FieldError } from '@mm/errors';

export class VelocityRulesDto {
  @ApiProperty({
    description: 'sliding window over which operations started are counted (seconds)',
    example: 600,
    minimum: 60,
    maximum: 86400,
  })
  @IsInt()
  @Min(60)
  @Max(86_400)
  windowSeconds: number;

  @ApiProperty({ description: 'operations a customer may start per window', example: 10, minimum: 1, maximum: 10000 })
  @IsInt()
  @Min(1)
  @Max(10_000)
  maxPerCustomer: number;

  @ApiProperty({
    description: 'operations an agent may start per window (agents serve queues of customers)',
    example: 60,
    minimum: 1,
    maximum: 10000,
  })
  @IsInt()
  @Min(1)
  @Max(10_000)
  maxPerAgent: number;

  @ApiProperty({ description: 'operations a merchant account may start per window', example: 30, minimum: 1, maximum: 10000 })
  @IsInt()
  @Min(1)
  @Max(10_000)
  maxPerMerchant: number;

  @ApiProperty({
    description: 'operations one device may start per window, whoever is signed in on it',
    example: 15,
    minimum: 1,
    maximum: 10000,
  })
  @IsInt()
  @Min(1)
  @Max(10_000)
  maxPerDevice: number;
}

/** Section `risk`: thresholds of the explicit risk rules (readable by administrators only). */
export class RiskDocumentDto {
  @ApiProperty({ type: VelocityRulesDto })
  @ValidateNested()
  @Type(() => VelocityRulesDto)
  velocity: VelocityRulesDto;

  @ApiProperty({
    description: "a first payment to a recipient is refused when it reaches this share (%) of the payer tier's single-operation limit",
    example: 80,
    minimum: 1,
    maximum: 100,
  })
  @IsInt()
  @Min(1)
  @Max(100)
  newRecipientHighAmountPercent: number;
}

export interface RiskDocument {
  velocity: Pick<VelocityRulesDto, 'windowSeconds' | 'maxPerCustomer' | 'maxPerAgent' | 'maxPerMerchant' | 'maxPerDevice'>;
  newRecipientHighAmountPercent: number;
}

/** Everything in this section is expressible with class-validator. */
export function riskDocumentErrors(_doc: RiskDocument): FieldError[] {
  return [];
}
