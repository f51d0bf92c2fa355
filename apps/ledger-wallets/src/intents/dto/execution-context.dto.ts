import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, IsUUID, MaxLength, ValidateNested } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsMoney } from './money';
import { TransferTermsDto } from './transfer-terms.dto';

export class FeeDto {
  @IsMoney(0)
  amount: number;

  /** defaults to the FEE_COLLECTION account of the currency */
  @OptionalField()
  @IsUUID()
  accountId?: string;
}

export class CommissionDto {
  @IsMoney(0)
  amount: number;

  /** the agent's commission account (credited) */
  @IsUUID()
  accountId: string;

  /** account debited; defaults to the TREASURY account of the currency */
  @OptionalField()
  @IsUUID()
  fromAccountId?: string;
}

export class ExecutionMetadataDto {
  /** business type code (e.g. P2P, CASH_IN_AGENT); defaults to the intent type */
  @OptionalField()
  @IsString()
  @MaxLength(64)
  typeCode?: string;

  @OptionalField()
  @IsString()
  @MaxLength(200)
  agentId?: string;

  @OptionalField()
  @IsString()
  @MaxLength(500)
  description?: string;

  /** anything else the orchestrator wants kept with the transaction (risk decision id, channel) */
  @OptionalField()
  @IsObject()
  extra?: Record<string, unknown>;
}

/**
 * The executionContext of a transition to SUCCEEDED, built by the orchestrator at confirm time
 * (fees recomputed, risk re-checked). Accounts, amount and currency must match the intent; the fee
 * may differ from the one frozen at creation (the hold is released and the real total debited,
 * checked against the available balance). Entries: amount source → destination, fee source →
 * FEE_COLLECTION, commission TREASURY → agent commission account (2 to 6 entries). The correlation
 * id comes from `X-Correlation-Id`.
 */
export class ExecutionContextDto extends TransferTermsDto {
  @OptionalField()
  @ValidateNested()
  @Type(() => FeeDto)
  fee?: FeeDto;

  @OptionalField()
  @ValidateNested()
  @Type(() => CommissionDto)
  commission?: CommissionDto;

  /** user id recorded as `created_by`; defaults to the intent's initiator */
  @OptionalField()
  @IsString()
  @MaxLength(200)
  createdBy?: string;

  @OptionalField()
  @ValidateNested()
  @Type(() => ExecutionMetadataDto)
  metadata?: ExecutionMetadataDto;

  @ApiProperty({
    required: false,
    minimum: 0,
    example: 500000,
    description:
      "The most the destination account's balance may reach with this credit, in minor units. Checked on the destination's row under the confirm's locks, so concurrent credits cannot pass it together: above it, 422 LIMIT_BALANCE_CAP_EXCEEDED, nothing moves and the intent stays PIN_VERIFIED (it may be confirmed again once the balance fell).",
  })
  @OptionalField()
  @IsMoney(0)
  payeeBalanceCap?: number;
}
