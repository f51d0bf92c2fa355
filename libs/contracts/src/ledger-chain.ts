import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';

/*
 * OpenAPI classes of the ledger's hash-chain verification (docs/ledger-chain.md). The ledger answers
 * them (`/v1/internal/ledger-chain/verifications`) and the orchestrator's compliance routes relay the
 * body unchanged, so both documents use these classes; the ledger checks at compile time that what
 * its verifier builds has these shapes.
 */

/** What a broken link is: see docs/ledger-chain.md for how each is told apart. */
export const LEDGER_CHAIN_BREAK_KINDS = ['EDITED', 'INSERTED', 'DELETED', 'ANCHOR_MISMATCH', 'ANCHOR_ROLLED_BACK', 'UNTRACEABLE'] as const;
export type LedgerChainBreakKind = (typeof LEDGER_CHAIN_BREAK_KINDS)[number];

export const LEDGER_CHAIN_ANCHOR_STATUSES = ['VERIFIED', 'MISMATCH', 'NONE'] as const;
export type LedgerChainAnchorStatus = (typeof LEDGER_CHAIN_ANCHOR_STATUSES)[number];

export class LedgerChainBreakView {
  @ApiProperty({ enum: LEDGER_CHAIN_BREAK_KINDS, example: 'EDITED' })
  kind: LedgerChainBreakKind;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: '8d7e6f5a-4b3c-4d2e-9f1a-0b1c2d3e4f5a',
    description: "the account whose chain breaks; null when the anchors' own records fail (no account's chain is at fault)",
  })
  accountId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: '1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b',
    description: 'the entry (ledger.ledgers id) at the break; null when the entries are gone (the account head names more than is left)',
  })
  entryId: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 42, description: "the entry's place in its account's chain (from 1)" })
  chainSeq: number | null;

  @ApiProperty({ type: String, nullable: true, format: 'uuid', example: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' })
  transactionId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'MMPTX2611220A1B2C3',
    description: "the transaction's reference, when it still exists",
  })
  referenceId: string | null;

  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', description: 'what the chain expects here' })
  expected: string;

  @ApiProperty({ example: '60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752', description: 'what the ledger holds' })
  found: string;

  @ApiProperty({ example: 'the entry no longer hashes to the hash it was written with', description: 'the break in words' })
  detail: string;
}

export class LedgerChainAnchorCheckView {
  @ApiProperty({
    enum: LEDGER_CHAIN_ANCHOR_STATUSES,
    example: 'VERIFIED',
    description:
      'VERIFIED: the last anchor is signed with LEDGER_CHAIN_ANCHOR_KEY and every head it signed is still in its chain; MISMATCH: not so; NONE: no anchor yet',
  })
  status: LedgerChainAnchorStatus;

  @ApiProperty({ type: 'integer', nullable: true, example: 17, description: 'the anchor checked (the last one)' })
  n: number | null;

  @ApiProperty({ type: String, nullable: true, format: 'date-time', example: '2026-11-22T01:55:00.000Z' })
  at: string | null;

  @ApiProperty({ type: 'integer', example: 48_211, description: 'accounts whose head the anchor signed' })
  accounts: number;

  @ApiProperty({ type: 'integer', example: 1_250_433, description: 'entries the anchor covers (the sum of those heads)' })
  entries: number;
}

/** What every verification records, just run or listed afterwards. */
class LedgerChainVerificationFields {
  @ApiProperty({ format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8' })
  id: string;

  @ApiProperty({
    enum: ['SCHEDULED', 'ON_DEMAND'],
    example: 'ON_DEMAND',
    description: "the nightly integrity check's run, or one asked for",
  })
  trigger: 'SCHEDULED' | 'ON_DEMAND';

  @ApiProperty({ enum: ['INTACT', 'BROKEN'], example: 'INTACT' })
  status: 'INTACT' | 'BROKEN';

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:00.000Z' })
  startedAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T02:00:03.500Z' })
  finishedAt: string;

  @ApiProperty({ type: 'integer', example: 48_211, description: 'accounts whose chain was walked (every account with an entry or a head)' })
  accountsChecked: number;

  @ApiProperty({ type: 'integer', example: 1_250_433, description: 'entries whose hash was recomputed' })
  entriesChecked: number;

  @ApiProperty({ type: 'integer', example: 0, description: 'accounts with at least one broken link (anchor mismatches included)' })
  brokenAccounts: number;

  @ApiProperty({
    type: LedgerChainBreakView,
    nullable: true,
    description:
      'the earliest tampering found: of every broken account, the break whose entry was written first (chain and anchor breaks alike); ' +
      'breaks[0]; null when intact',
  })
  firstBreak: LedgerChainBreakView | null;

  @ApiProperty({
    type: [LedgerChainBreakView],
    description:
      "each broken account's earliest break (and the anchors' own records, when they fail), earliest first, at most 50; " +
      '`brokenAccounts` counts them all. Runs recorded before this list existed show their first break alone',
  })
  breaks: LedgerChainBreakView[];

  @ApiProperty({ type: LedgerChainAnchorCheckView })
  anchor: LedgerChainAnchorCheckView;

  @ApiProperty({
    example: 'b3c4d5e6-f7a8-4b9c-8d0e-1f2a3b4c5d6e',
    description: "`scheduler` for the nightly integrity check's run, else the id of the operator whose access token came with the request",
  })
  requestedBy: string;
}

/** A verification just run: the ledger's POST, relayed by the orchestrator. */
export class LedgerChainVerificationView extends LedgerChainVerificationFields {
  @ApiProperty({ example: 'c0ffee00-0000-4000-8000-000000000001', description: "the request's correlation id (logs)" })
  correlationId: string;
}

/** A past verification as stored, newest first, with who asked. */
export class LedgerChainVerificationRecordView extends LedgerChainVerificationFields {
  @ApiProperty({ type: String, nullable: true, example: 'c0ffee00-0000-4000-8000-000000000001' })
  correlationId: string | null;

  @ApiProperty({ type: 'string', isArray: true, example: ['COMPLIANCE'], description: "the operator's roles (empty for the scheduler)" })
  requestedByRoles: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'orchestrator',
    description: 'the service that relayed the request (null: the scheduler)',
  })
  caller: string | null;

  @ApiProperty({ type: String, nullable: true, example: '5d6e7f8a-9b0c-4d1e-8f2a-3b4c5d6e7f8a' })
  requestId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: null,
    description: 'the integrity check this verification was part of (null: asked for on its own)',
  })
  integrityCheckId: string | null;
}

export class LedgerChainVerificationsQueryDto {
  @ApiPropertyOptional({ description: 'how many of the latest verifications to list', minimum: 1, maximum: 100, default: 20, example: 20 })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

/** The chain's part of an integrity check: the verification it ran, in short. */
export class LedgerChainIntegrityView {
  @ApiProperty({ format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8', description: 'the verification, listed with the others' })
  verificationId: string;

  @ApiProperty({ enum: ['INTACT', 'BROKEN'], example: 'INTACT' })
  status: 'INTACT' | 'BROKEN';

  @ApiProperty({ type: 'integer', example: 0 })
  brokenAccounts: number;

  @ApiProperty({ type: LedgerChainBreakView, nullable: true })
  firstBreak: LedgerChainBreakView | null;

  @ApiProperty({ enum: LEDGER_CHAIN_ANCHOR_STATUSES, example: 'VERIFIED' })
  anchorStatus: LedgerChainAnchorStatus;
}

/** A chain anchor as the ledger stores it: what the orchestrator's witness copies outside the ledger's database. */
export class LedgerChainAnchorView {
  @ApiProperty({ type: 'integer', example: 17, description: 'its number, from 1, without gaps' })
  n: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T01:55:00.000Z', description: 'when it was signed' })
  at: string;

  @ApiProperty({ type: 'integer', example: 48_211, description: 'accounts whose head it signed' })
  accounts: number;

  @ApiProperty({ type: 'integer', example: 1_250_433, description: 'entries it covers (the sum of those heads)' })
  entries: number;

  @ApiProperty({
    example: '5f1d3c0a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a392817060504',
    description: 'its HMAC-SHA256 in hex (chained to the MAC of the anchor before it)',
  })
  mac: string;

  @ApiProperty({ example: '3fa2c1d0', description: 'which key signed it' })
  keyId: string;
}
