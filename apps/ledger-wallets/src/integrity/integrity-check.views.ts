import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import type { AccountGap, CurrencyTotal, IntegrityCheckResult } from './integrity-check.service';

/*
 * OpenAPI shapes of what the integrity routes answer. The classes `implement` the result the check
 * builds, so a field added there without its documentation fails to compile.
 */

export class AccountGapView implements AccountGap {
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

export class CurrencyTotalView implements CurrencyTotal {
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ type: 'integer', example: 0, description: 'Σ stored balances of the currency (0 when every movement is double entry)' })
  storedTotal: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'Σ credits − Σ debits over every entry (0 when every transaction balances)' })
  ledgerTotal: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'storedTotal − ledgerTotal' })
  gap: number;
}

/** What every check records, whether just run or listed afterwards. */
class IntegrityCheckFields {
  @ApiProperty({ format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8' })
  id: string;

  @ApiProperty({ enum: ['SCHEDULED', 'ON_DEMAND'], example: 'ON_DEMAND' })
  trigger: IntegrityCheckResult['trigger'];

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:00.000Z' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:01.250Z' })
  finishedAt: string;

  @ApiProperty({ type: 'integer', example: 48_211, description: 'accounts in the ledger when the check ran' })
  accountsChecked: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'accounts with a gap plus currencies whose totals are not zero' })
  gapCount: number;

  @ApiProperty({ enum: ['OK', 'GAPS_FOUND'], example: 'OK' })
  status: IntegrityCheckResult['status'];

  @ApiProperty({ type: [CurrencyTotalView], description: 'one per supported currency' })
  currencyTotals: CurrencyTotalView[];

  @ApiProperty({ type: [AccountGapView], description: 'the accounts whose balance disagrees with their entries (at most 1000)' })
  gaps: AccountGapView[];
}

/** `POST /integrity-checks`: the check just run. */
export class IntegrityCheckResultView extends IntegrityCheckFields implements IntegrityCheckResult {
  @ApiProperty({
    example: 'c0ffee00-0000-4000-8000-000000000001',
    description: "the request's correlation id (a new one when it had none): logs and alert",
  })
  correlationId: string;

  @ApiProperty({ example: false, description: 'gaps were found and the compliance channel acknowledged the alert' })
  alertSent: boolean;
}

/** `GET /integrity-checks`: a past check as stored (the alert outcome is in the logs, not stored). */
export class IntegrityCheckRecordView extends IntegrityCheckFields {
  @ApiProperty({ type: String, nullable: true, example: 'c0ffee00-0000-4000-8000-000000000001' })
  correlationId: string | null;
}
