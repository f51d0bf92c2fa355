import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import type { CorrectionEventView, CorrectionView } from '../correction-view';
import { CORRECTION_STATUSES, type CorrectionStatus } from './list-corrections.dto';
import { REFERENCE_ID_PATTERN } from '../../execution/reference-id';
import { CORRECTION_DIRECTIONS, CORRECTION_KINDS, type CorrectionDirection, type CorrectionKind } from './submit-correction.dto';

/*
 * OpenAPI shapes of what the correction routes answer. Each class `implements` the view the code
 * builds (correction-view.ts), so a field added there without its documentation fails to compile;
 * the maker-checker test compares the documented property names with real answers.
 */

export const CORRECTION_EVENTS = ['submitted', 'approved', 'executed', 'rejected', 'expired', 'alert_sent', 'alert_failed'] as const;

export class CorrectionMakerView {
  @ApiProperty({ example: 'a1b2c3d4-0000-4000-8000-00000000000a', description: 'the operator (access token subject) who submitted' })
  id: string;

  @ApiProperty({ type: [String], example: ['SUPPORT', 'ADMIN'], description: "the maker's roles when submitting" })
  roles: string[];

  @ApiProperty({ format: 'date-time', example: '2026-03-02T09:15:00.000Z' })
  submittedAt: string;
}

export class CorrectionCheckerView {
  @ApiProperty({ example: 'a1b2c3d4-0000-4000-8000-00000000000b', description: 'the operator who approved or rejected (never the maker)' })
  id: string;

  @ApiProperty({ type: [String], example: ['ADMIN'], description: "the checker's roles when deciding" })
  roles: string[];

  @ApiProperty({ format: 'date-time', example: '2026-03-02T10:40:00.000Z' })
  decidedAt: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Checked against the bank statement of 2026-03-02',
    description: 'optional on approval, always given on rejection',
  })
  reason: string | null;
}

export class CorrectionEventViewDto implements CorrectionEventView {
  @ApiProperty({ enum: CORRECTION_EVENTS, example: 'approved' })
  event: (typeof CORRECTION_EVENTS)[number];

  @ApiProperty({
    example: 'a1b2c3d4-0000-4000-8000-00000000000b',
    description:
      'an operator id; `system:compliance-alert` for the alert steps; `system:<service>` for an expiry (e.g. `system:orchestrator`)',
  })
  actorId: string;

  @ApiProperty({ type: [String], example: ['ADMIN'], description: 'empty for system steps' })
  actorRoles: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Checked against the bank statement of 2026-03-02',
    description: "the operator's reason; for alert_failed, why the alert did not go through",
  })
  reason: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { tokenId: '6f1e2d3c-4b5a-4987-8654-3210fedcba98', correlationId: 'c0ffee00-0000-4000-8000-000000000001' },
    description:
      "what the step recorded: the operator token's id (jti) and the correlation id for submitted, approved and rejected; for executed, transactionId and referenceId, with signedAmount (ACCOUNT) or reversalOf and the entries count (REVERSAL); the correlation id for the alert steps",
  })
  metadata: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', example: '2026-03-02T10:40:00.000Z' })
  at: string;
}

export class ReversedTransactionView {
  @ApiProperty({ format: 'uuid', example: '9b2f6d1e-3c4a-4b5d-8e6f-7a8b9c0d1e2f', description: 'the ledger transaction reversed' })
  transactionId: string;

  @ApiProperty({ pattern: REFERENCE_ID_PATTERN.source, example: 'MMPTX261126K7Q2M9Z', description: 'its reference' })
  referenceId: string;
}

/** A correction as `POST /corrections` and the list answer it (no journal). */
export class CorrectionViewDto implements CorrectionView {
  @ApiProperty({ format: 'uuid', example: '3c9f4e2a-7b1d-4a8e-9f60-1d2e3f4a5b6c' })
  id: string;

  @ApiProperty({
    enum: CORRECTION_KINDS,
    example: 'ACCOUNT',
    description: 'ACCOUNT: one account against suspense; REVERSAL: the inverse of every entry of one ledger transaction',
  })
  kind: CorrectionKind;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
    description: 'the account corrected; null for a REVERSAL (it touches every account of its transaction)',
  })
  accountId: string | null;

  @ApiProperty({
    enum: CORRECTION_DIRECTIONS,
    nullable: true,
    example: 'CREDIT',
    description: 'CREDIT adds to the account (from suspense), DEBIT takes from it; null for a REVERSAL',
  })
  direction: CorrectionDirection | null;

  @ApiProperty({
    type: ReversedTransactionView,
    nullable: true,
    description: 'REVERSAL: the transaction it undoes; null for an ACCOUNT correction',
  })
  reversalOf: ReversedTransactionView | null;

  @ApiProperty({
    type: 'integer',
    example: 25_000,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'integer, smallest currency unit: the amount corrected, or for a REVERSAL the amount of the transaction reversed',
  })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF', description: "the account's (or the reversed transaction's) currency" })
  currency: string;

  @ApiProperty({ example: 'Cash-in of 2026-03-02 credited twice by the partner bank', description: "the maker's reason" })
  reason: string;

  @ApiProperty({
    enum: CORRECTION_STATUSES,
    example: 'PENDING_APPROVAL',
    description: 'EXPIRED: the maker-checker request it belonged to ran out of time; nothing moved',
  })
  status: CorrectionStatus;

  @ApiProperty({
    example: false,
    description:
      'above the compliance limit (for a REVERSAL, compared with the most any one account moves, fee included): only a compliance officer may approve',
  })
  requiresCompliance: boolean;

  @ApiProperty({ type: CorrectionMakerView })
  maker: CorrectionMakerView;

  @ApiProperty({
    type: CorrectionCheckerView,
    nullable: true,
    description: 'null while PENDING_APPROVAL, and for an EXPIRED correction (nobody decided)',
  })
  checker: CorrectionCheckerView | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: null,
    description: 'the signed adjustment (or the reversal) transaction; set once EXECUTED',
  })
  transactionId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    pattern: REFERENCE_ID_PATTERN.source,
    example: null,
    description: "that transaction's reference (e.g. to quote when resolving a partner payment anomaly); set once EXECUTED",
  })
  referenceId: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'when the compliance channel acknowledged the alert of the executed correction (retried until it does)',
  })
  alertedAt: string | null;
}

/** One correction with its journal, as the single read, approve and reject answer it. */
export class CorrectionDetailViewDto extends CorrectionViewDto {
  @ApiProperty({ type: [CorrectionEventViewDto], description: 'every step, oldest first' })
  events: CorrectionEventViewDto[];
}
