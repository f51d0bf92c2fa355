import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from './services';

/*
 * A named hold on part of an account's available balance, as the ledger answers it
 * (`/v1/internal/holds`) and the orchestrator relays it (`/api/backoffice/ledger/holds`). One home
 * for the shape: the ledger's views check at compile time that the hold it builds is this class,
 * the orchestrator's that the type its ledger client reads is.
 */

/** ledger.holds.status */
export const LEDGER_HOLD_STATUSES = ['ACTIVE', 'RELEASED'] as const;
export type LedgerHoldStatus = (typeof LEDGER_HOLD_STATUSES)[number];

export class LedgerHoldPlacedView {
  @ApiProperty({
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'the operator whose token placed it: the checker of a back-office request, or the operator calling the ledger directly',
  })
  by: string;

  @ApiProperty({ type: [String], example: ['COMPLIANCE'] })
  roles: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'approval-request:0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d',
    description: 'who asked for it: `approval-request:<id>` for a back-office request, else the id the calling operator gave',
  })
  requestedBy: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T10:02:11.004Z' })
  at: string;
}

export class LedgerHoldReleasedView extends LedgerHoldPlacedView {
  @ApiProperty({ example: 'Case 4411 closed' })
  reason: string;
}

/** A named hold on part of an account's available balance. */
export class LedgerHoldView {
  @ApiProperty({ format: 'uuid', example: '9f60a1b2-7b1d-4a8e-bc9f-1d2e3f4a5b6c' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  accountId: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'smallest currency unit', example: 25_000 })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'Suspected account takeover, case 4411' })
  reason: string;

  @ApiProperty({ enum: LEDGER_HOLD_STATUSES, example: 'ACTIVE' })
  status: LedgerHoldStatus;

  @ApiProperty({ type: LedgerHoldPlacedView })
  placed: LedgerHoldPlacedView;

  @ApiProperty({ type: LedgerHoldReleasedView, nullable: true })
  released: LedgerHoldReleasedView | null;
}
