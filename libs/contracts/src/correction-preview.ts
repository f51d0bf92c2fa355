import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from './services';

/*
 * What approving a ledger correction would write, computed by the ledger now
 * (`GET /v1/internal/corrections/:id/preview`). The ledger answers it and the orchestrator relays it
 * in an approval request's preview, so the shape has one home here. The ledger's views check at
 * compile time that its preview service builds exactly this shape, the orchestrator's that the type
 * its ledger client reads is the same.
 */

/** ledger.corrections.kind */
export const LEDGER_CORRECTION_KINDS = ['ACCOUNT', 'REVERSAL'] as const;
/** ledger.corrections.status */
export const LEDGER_CORRECTION_STATUSES = ['PENDING_APPROVAL', 'EXECUTED', 'REJECTED', 'EXPIRED'] as const;

const MONEY = { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

export class CorrectionPreviewEntryView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({
    example: 'agent',
    description: 'customer, merchant, agent (float), agent_commission, suspense, treasury, fee_collection…',
  })
  accountType: string;

  @ApiProperty({ enum: ['DEBIT', 'CREDIT'], example: 'CREDIT' })
  direction: 'DEBIT' | 'CREDIT';

  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 500_000, description: 'smallest currency unit' })
  amount: number;
}

export class CorrectionPreviewAccountView {
  @ApiProperty({ format: 'uuid', example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a' })
  accountId: string;

  @ApiProperty({ example: 'agent' })
  accountType: string;

  @ApiProperty({ ...MONEY, example: 0 })
  balanceBefore: number;

  @ApiProperty({ ...MONEY, example: 500_000 })
  balanceAfter: number;

  @ApiProperty({ ...MONEY, example: 0 })
  availableBefore: number;

  @ApiProperty({ ...MONEY, example: 500_000 })
  availableAfter: number;

  @ApiProperty({ example: true, description: 'false: approving now would be refused INSUFFICIENT_BALANCE on this account' })
  sufficient: boolean;
}

export class CorrectionPreviewView {
  @ApiProperty({ format: 'uuid', example: '3c9f4e2a-7b1d-4a8e-9f60-1d2e3f4a5b6c' })
  correctionId: string;

  @ApiProperty({ enum: LEDGER_CORRECTION_KINDS, example: 'ACCOUNT' })
  kind: string;

  @ApiProperty({ enum: LEDGER_CORRECTION_STATUSES, example: 'PENDING_APPROVAL' })
  status: string;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: false, description: 'only a compliance officer may approve' })
  requiresCompliance: boolean;

  @ApiProperty({ type: [CorrectionPreviewEntryView], description: 'the postings the approval writes, paired DEBIT / CREDIT' })
  entries: CorrectionPreviewEntryView[];

  @ApiProperty({ type: [CorrectionPreviewAccountView], description: 'each account touched: balances now and after the approval' })
  accounts: CorrectionPreviewAccountView[];

  @ApiProperty({ example: true, description: 'every account can give what the entries take from it (balances read now, without a lock)' })
  executable: boolean;
}
