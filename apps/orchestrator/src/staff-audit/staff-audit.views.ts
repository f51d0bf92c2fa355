import { ApiProperty } from '@nestjs/swagger';

export const CHAIN_PROBLEMS = [
  'MISSING',
  'BROKEN_LINK',
  'HASH_MISMATCH',
  'HEAD_MISMATCH',
  'BEYOND_HEAD',
  'ANCHOR_INVALID',
  'ANCHOR_MISSING',
  'ANCHOR_MISMATCH',
] as const;
export type ChainProblem = (typeof CHAIN_PROBLEMS)[number];

export class AuditActorView {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  userId: string;

  @ApiProperty({ enum: ['SUPPORT', 'COMPLIANCE', 'ADMIN', 'AUDITOR'], example: 'COMPLIANCE' })
  role: string;
}

export class AuditTargetView {
  @ApiProperty({ type: String, nullable: true, example: 'person', description: 'person, account, transaction, approval, integration, …' })
  type: string | null;

  @ApiProperty({ type: String, nullable: true, example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92' })
  id: string | null;
}

export class AuditOutcomeView {
  @ApiProperty({ type: 'integer', example: 403, description: 'the HTTP status the request was answered with' })
  status: number;

  @ApiProperty({ type: String, nullable: true, example: 'FORBIDDEN', description: 'the stable error code of a refusal; null on success' })
  code: string | null;
}

/** One record of the staff audit trail. */
export class StaffAuditRecordView {
  @ApiProperty({ type: 'integer', example: 1042, description: 'position in the chain: 1, 2, 3… without gaps' })
  seq: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:12:45.120Z', description: 'when the database wrote the record' })
  at: string;

  @ApiProperty({ type: AuditActorView })
  actor: AuditActorView;

  @ApiProperty({ example: 'POST /api/orchestrator/admin/customers/:customerId/freeze', description: 'method and route template' })
  action: string;

  @ApiProperty({ type: String, nullable: true, example: 'admin.freeze', description: 'the handler’s short name' })
  actionName: string | null;

  @ApiProperty({ type: AuditTargetView, nullable: true })
  target: AuditTargetView | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Suspected account takeover, ticket 4821',
    description: 'the `reason` of the request body',
  })
  reason: string | null;

  @ApiProperty({ example: '0b7c6f1e-2d4a-4e8b-9c3f-5a6d7e8f9a0b', description: 'the X-Request-Id of the request' })
  requestId: string;

  @ApiProperty({
    enum: ['started', 'outcome'],
    example: 'outcome',
    description:
      'started: written before a staff write ran (nothing runs unless it is written); outcome: how the request was answered, ' +
      'with the same requestId. A read, a refusal by the access guard and a proxied /api/auth request have only the outcome.',
  })
  phase: 'started' | 'outcome';

  @ApiProperty({ type: AuditOutcomeView, nullable: true, description: 'null on a started record' })
  outcome: AuditOutcomeView | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { params: { customerId: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92' }, resultId: '0d6c1f9e-5a4b-4c3d-9e8f-7a6b5c4d3e2f' },
    description:
      'route parameters (`params`), the query of a read (`query`), every id of a list target such as a bulk decision (`targets`), ' +
      'and on an outcome the `id` the answer gave when it is not the target (`resultId`: what the write created); never a body or a secret',
  })
  details: Record<string, unknown>;

  @ApiProperty({
    example: '719c4b858821214472058538f04b92cc0df1e95feefed5d1fa2e88a42576a336',
    description: 'hash of the record before (hex)',
  })
  prevHash: string;

  @ApiProperty({
    example: 'ea1c6441e84a906e7d1b15858cd0dc8ea4140ebdfefbe71641b4a341613b5ced',
    description: 'sha256(prevHash || canonical text of this record), computed by the database (hex)',
  })
  hash: string;
}

export class AuditTrailPageView {
  @ApiProperty({ type: [StaffAuditRecordView], description: 'newest first' })
  items: StaffAuditRecordView[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: '1001',
    description: 'pass as `cursor` for the next (older) page; null on the last',
  })
  nextCursor: string | null;
}

export class AuditChainBreakView {
  @ApiProperty({
    type: 'integer',
    example: 17,
    description: 'the first record found missing or altered (for an anchor problem: the anchored seq)',
  })
  seq: number;

  @ApiProperty({
    enum: CHAIN_PROBLEMS,
    example: 'MISSING',
    description:
      'MISSING: no record holds this seq (deleted); BROKEN_LINK: its prevHash is not the hash of the record before; ' +
      'HASH_MISMATCH: its content is not what was hashed (edited); HEAD_MISMATCH: the last record is not the one the chain head holds; ' +
      'BEYOND_HEAD: a record was added behind the chaining trigger; ANCHOR_INVALID: an anchor whose signature does not verify ' +
      '(forged, altered, or an anchor before it removed); ANCHOR_MISSING: the record an anchor names is gone (deleted, the head moved back); ' +
      'ANCHOR_MISMATCH: the record an anchor names now has another hash (rewritten)',
  })
  problem: ChainProblem;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description: 'the anchor (its n) that found the problem; null for a problem of the walk',
  })
  anchor: number | null;
}

export class AuditChainHeadView {
  @ApiProperty({ type: 'integer', example: 1042, description: 'how many records the chain head says were written' })
  seq: number;

  @ApiProperty({
    example: 'ea1c6441e84a906e7d1b15858cd0dc8ea4140ebdfefbe71641b4a341613b5ced',
    description: 'hash of the last record written (hex)',
  })
  hash: string;
}

/** A (seq, hash) of the chain that a check found intact, signed by the orchestrator with a key the database never sees. */
export class AuditAnchorView {
  @ApiProperty({ type: 'integer', example: 12, description: 'anchors are numbered 1, 2, 3…; each signature covers the one before' })
  n: number;

  @ApiProperty({ type: 'integer', example: 1042 })
  seq: number;

  @ApiProperty({
    example: 'ea1c6441e84a906e7d1b15858cd0dc8ea4140ebdfefbe71641b4a341613b5ced',
    description: 'the hash of the record at seq (hex)',
  })
  hash: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:13:00.000Z' })
  at: string;
}

export class AuditAnchorsCheckView {
  @ApiProperty({
    type: 'integer',
    example: 12,
    description: 'anchors found sound (signature valid, their record still there with the same hash)',
  })
  checked: number;

  @ApiProperty({
    type: AuditAnchorView,
    nullable: true,
    description: 'the newest sound anchor (the one this check wrote, if it wrote one)',
  })
  last: AuditAnchorView | null;
}

/** The result of a check: the anchors, then the records from `from` to the head. */
export class AuditChainCheckView {
  @ApiProperty({ example: true })
  intact: boolean;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 1001,
    description:
      'the seq the walk started at (1 unless fromSeq or full=false said otherwise); null when an anchor failed and nothing was walked',
  })
  from: number | null;

  @ApiProperty({
    type: 'integer',
    example: 42,
    description: 'records walked and found sound before the first break (all those walked when intact)',
  })
  checked: number;

  @ApiProperty({ type: AuditChainBreakView, nullable: true })
  firstBroken: AuditChainBreakView | null;

  @ApiProperty({ type: AuditChainHeadView })
  head: AuditChainHeadView;

  @ApiProperty({ type: AuditAnchorsCheckView })
  anchors: AuditAnchorsCheckView;

  @ApiProperty({
    type: AuditAnchorView,
    nullable: true,
    description:
      'the anchor this check wrote at the head (when intact, the walk covered everything since the last anchor and the head had moved)',
  })
  anchored: AuditAnchorView | null;
}
