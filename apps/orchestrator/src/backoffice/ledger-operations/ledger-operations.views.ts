import { ApiProperty } from '@nestjs/swagger';
import type { CorrectionPreviewView, LedgerHoldView, SameShape } from '@mm/contracts';
import type { LedgerCorrection, LedgerCorrectionEvent, LedgerCorrectionPreview, LedgerHold } from './ledger-operations.types';

/*
 * OpenAPI shapes of the ledger's answers relayed by /api/backoffice/ledger. Each class `implements`
 * the type the client reads, so a field the code relies on cannot go undocumented.
 */

/** A correction's preview is relayed as the ledger wrote it: the contract's CorrectionPreviewView. */
const previewDocumented: SameShape<LedgerCorrectionPreview, CorrectionPreviewView> = true;
/** So is a hold: the contract's LedgerHoldView, re-exported for the controller. */
const holdDocumented: SameShape<LedgerHold, LedgerHoldView> = true;
void [previewDocumented, holdDocumented];

export { LedgerHoldView } from '@mm/contracts';

const AMOUNT = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'smallest currency unit' } as const;

export class LedgerCorrectionMakerView {
  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the staff member (user id) who submitted' })
  id: string;

  @ApiProperty({ type: [String], example: ['ADMIN'] })
  roles: string[];

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:12:45.120Z' })
  submittedAt: string;
}

export class LedgerCorrectionCheckerView {
  @ApiProperty({ example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92', description: 'who approved or rejected (never the maker)' })
  id: string;

  @ApiProperty({ type: [String], example: ['COMPLIANCE'] })
  roles: string[];

  @ApiProperty({ format: 'date-time', example: '2026-11-28T10:02:11.004Z' })
  decidedAt: string;

  @ApiProperty({ type: String, nullable: true, example: 'Approval request 0c1b3d5f-7a92-4f9a-a6e4-8a3f5c1e7b2d approved' })
  reason: string | null;
}

export class LedgerReversedTransactionView {
  @ApiProperty({ format: 'uuid', example: '9b2f6d1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f' })
  transactionId: string;

  @ApiProperty({ example: 'MMPTX261126K7Q2M9Z' })
  referenceId: string;
}

export class LedgerCorrectionEventView implements LedgerCorrectionEvent {
  @ApiProperty({ enum: ['submitted', 'approved', 'executed', 'rejected', 'expired', 'alert_sent', 'alert_failed'], example: 'approved' })
  event: string;

  @ApiProperty({
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'a staff user id; `system:orchestrator` for an expiry, `system:compliance-alert` for the alert steps',
  })
  actorId: string;

  @ApiProperty({ type: [String], example: ['COMPLIANCE'] })
  actorRoles: string[];

  @ApiProperty({ type: String, nullable: true, example: 'Float top-up agreed with the agent network manager' })
  reason: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { tokenId: '6f1e2d3c-4b5a-4987-8654-3210fedcba98' } })
  metadata: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T10:02:11.004Z' })
  at: string;
}

/** A ledger correction (ACCOUNT or REVERSAL) as the ledger keeps it. */
export class LedgerCorrectionView implements LedgerCorrection {
  @ApiProperty({ format: 'uuid', example: '3c9f4e2a-7b1d-4a8e-9f60-1d2e3f4a5b6c' })
  id: string;

  @ApiProperty({ enum: ['ACCOUNT', 'REVERSAL'], example: 'ACCOUNT' })
  kind: 'ACCOUNT' | 'REVERSAL';

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
    description: 'null for a REVERSAL',
  })
  accountId: string | null;

  @ApiProperty({ enum: ['CREDIT', 'DEBIT'], nullable: true, example: 'CREDIT', description: 'null for a REVERSAL' })
  direction: 'CREDIT' | 'DEBIT' | null;

  @ApiProperty({ type: LedgerReversedTransactionView, nullable: true, description: 'REVERSAL: the transaction it undoes' })
  reversalOf: LedgerReversedTransactionView | null;

  @ApiProperty({ ...AMOUNT, example: 500_000 })
  amount: number;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'Float top-up agreed with the agent network manager' })
  reason: string;

  @ApiProperty({ enum: ['PENDING_APPROVAL', 'EXECUTED', 'REJECTED', 'EXPIRED'], example: 'EXECUTED' })
  status: 'PENDING_APPROVAL' | 'EXECUTED' | 'REJECTED' | 'EXPIRED';

  @ApiProperty({ example: false, description: 'above the ledger compliance limit: only a compliance officer may approve' })
  requiresCompliance: boolean;

  @ApiProperty({ type: LedgerCorrectionMakerView })
  maker: LedgerCorrectionMakerView;

  @ApiProperty({ type: LedgerCorrectionCheckerView, nullable: true, description: 'null while pending and for an expired correction' })
  checker: LedgerCorrectionCheckerView | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'the transaction the approval wrote' })
  transactionId: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: "that transaction's reference" })
  referenceId: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'when the compliance channel acknowledged the alert',
  })
  alertedAt: string | null;
}

export class LedgerCorrectionDetailView extends LedgerCorrectionView {
  @ApiProperty({ type: [LedgerCorrectionEventView], description: 'every step, oldest first: who, when, why' })
  declare events: LedgerCorrectionEventView[];
}
