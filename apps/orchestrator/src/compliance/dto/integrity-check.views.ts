import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';

/* The ledger's integrity checks, relayed as the ledger wrote them. Amounts are integers in the smallest unit. */

export class IntegrityChecksQueryDto {
  @ApiPropertyOptional({ description: 'how many of the latest checks to list', minimum: 1, maximum: 100, default: 20, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class AccountGapView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'customer' })
  accountType: string;

  @ApiProperty({ type: 'integer', example: 15_000, description: 'the balance stored on the account' })
  stored: number;

  @ApiProperty({ type: 'integer', example: 14_000, description: 'Σ credits − Σ debits of its entries' })
  recomputed: number;

  @ApiProperty({ type: 'integer', example: 1_000, description: 'stored − recomputed (0 when only available + frozen ≠ balance)' })
  gap: number;

  @ApiProperty({ type: 'integer', example: 15_000, description: 'the stored available balance' })
  available: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'the stored frozen balance' })
  frozen: number;
}

export class CurrencyTotalView {
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ type: 'integer', example: 0, description: 'Σ stored balances of the currency (0 when every movement is double entry)' })
  storedTotal: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'Σ credits − Σ debits over every entry (0 when every transaction balances)' })
  ledgerTotal: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'storedTotal − ledgerTotal' })
  gap: number;
}

class IntegrityCheckFields {
  @ApiProperty({ format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8' })
  id: string;

  @ApiProperty({ enum: ['SCHEDULED', 'ON_DEMAND'], example: 'ON_DEMAND', description: 'the nightly run, or one asked for' })
  trigger: 'SCHEDULED' | 'ON_DEMAND';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:00.000Z' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:01.250Z' })
  finishedAt: string;

  @ApiProperty({ type: 'integer', example: 48_211, description: 'accounts in the ledger when the check ran' })
  accountsChecked: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 0,
    description: 'every account with a gap plus the currencies whose totals are not zero',
  })
  gapCount: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 0, description: 'every account with a gap, listed or not' })
  accountGapCount: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 1000,
    example: 0,
    description: 'how many of them `gaps` lists (the first 1000 by account id)',
  })
  gapsListed: number;

  @ApiProperty({ enum: ['OK', 'GAPS_FOUND'], example: 'OK' })
  status: 'OK' | 'GAPS_FOUND';

  @ApiProperty({ type: [CurrencyTotalView], description: 'one per supported currency' })
  currencyTotals: CurrencyTotalView[];

  @ApiProperty({ type: [AccountGapView], description: 'the accounts whose balance disagrees with their entries (at most 1000)' })
  gaps: AccountGapView[];

  @ApiProperty({
    example: 'b3c4d5e6-f7a8-4b9c-8d0e-1f2a3b4c5d6e',
    description: '`scheduler` for the nightly run, else the user id of the officer who asked',
  })
  requestedBy: string;
}

/** `POST /api/v1/compliance/integrity-checks`: the check just run. */
export class IntegrityCheckResultView extends IntegrityCheckFields {
  @ApiProperty({ example: 'c0ffee00-0000-4000-8000-000000000001', description: "the request's correlation id: logs and alert" })
  correlationId: string;

  @ApiProperty({ example: false, description: 'gaps were found and the compliance channel acknowledged the alert' })
  alertSent: boolean;
}

export class IntegrityAlertView {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 3, example: 1, description: 'tries made (0 when no alert channel is configured)' })
  attempts: number;

  @ApiProperty({ example: true, description: 'the compliance channel acknowledged one of the tries' })
  delivered: boolean;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'why the last try failed, when none succeeded' })
  lastError: string | null;
}

/** `GET /api/v1/compliance/integrity-checks`: a past check, with who asked and its alert. */
export class IntegrityCheckRecordView extends IntegrityCheckFields {
  @ApiProperty({ type: String, nullable: true, example: 'c0ffee00-0000-4000-8000-000000000001' })
  correlationId: string | null;

  @ApiProperty({ type: 'string', isArray: true, example: ['COMPLIANCE'], description: "the officer's roles (empty for the scheduler)" })
  requestedByRoles: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'orchestrator',
    description: 'the service that relayed the request (null: the scheduler)',
  })
  caller: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '5d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f8a',
    description: 'the request id of the run (null: the scheduler)',
  })
  requestId: string | null;

  @ApiProperty({
    type: IntegrityAlertView,
    nullable: true,
    description: 'the alert of a run that found gaps (null when there was nothing to alert)',
  })
  alert: IntegrityAlertView | null;
}
