import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import type { ErrorCode } from '@mm/errors';
import { MetricsService, PeriodicJob, currentContext, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import type { DbSession } from '../db/db-session';
import { LedgerDb } from '../db/ledger-db.service';
import { ComplianceChannel } from '../common/compliance-channel.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import {
  ANCHOR_COLUMNS,
  type AnchorFields,
  type AnchorRecordsCheck,
  type AnchorRow,
  NO_MAC,
  anchorFields,
  anchorMac,
  checkAnchorRecords,
  headsDigest,
  sameHex,
} from './chain-anchor-records';
import { AnchorKeyring } from './chain-keyring';
import { type ChainSegment, checkSegments } from './chain-segments';
import { CHAIN_START, type ChainBreak, type ChainHead, anchorRecordsBreak } from './chain-walk';

/** Development-only key: production refuses to boot without LEDGER_CHAIN_ANCHOR_KEY (assertLedgerProductionConfig). */
const DEVELOPMENT_KEY = 'development-only-ledger-chain-anchor-key-not-for-production';
/** Advisory lock ("lchain" as a number): one writer of anchors at a time, across replicas. */
export const ANCHOR_LOCK = 0x6c636861696e;
/** The stable code of a refused anchor, in its log line and its alert. */
export const ANCHOR_REFUSED = 'LEDGER_CHAIN_ANCHOR_REFUSED' satisfies ErrorCode;

interface HeadRow {
  account_id: string;
  seq: string;
  hash: string;
}

/** What one pass of the anchor job did. */
export type AnchorOutcome =
  | { status: 'WRITTEN'; n: number; at: string; accounts: number; entries: number; moved: number }
  /** no head moved since the previous anchor */
  | { status: 'UNCHANGED' }
  /** another replica holds the anchor lock */
  | { status: 'BUSY' }
  /** the chain since the previous anchor (or that anchor's own records) does not verify: nothing written */
  | { status: 'REFUSED'; code: typeof ANCHOR_REFUSED; brokenAccounts: number; firstBreak: ChainBreak };

/**
 * Signed anchors of the ledger chain (docs/ledger-chain.md). Whoever owns the database can rewrite
 * entries and recompute every hash and head after them; what they cannot do is sign. An anchor
 * records the heads (seq, hash) that moved since the anchor before (`chain_anchor_heads`), and an
 * HMAC-SHA256 under LEDGER_CHAIN_ANCHOR_KEY over the digest of every account's head, the digest of
 * its own rows and the MAC of the anchor before. The key never reaches the database. A verification
 * then checks that every anchored head is still the hash at that place of its chain.
 *
 * Before it signs, a pass checks what it is about to sign: the previous anchor's signature and
 * records (the base), then every link written since on the accounts that moved, recomputed from the
 * previously anchored head. A chain rewritten in the meantime is never signed: the pass writes
 * nothing, logs LEDGER_CHAIN_ANCHOR_REFUSED, counts it and alerts the compliance channel.
 *
 * Written every LEDGER_CHAIN_ANCHOR_INTERVAL_MS by one replica (a transaction-scoped advisory lock:
 * the others skip their turn), while the background jobs run (LEDGER_OUTBOX_POLL_MS > 0), and only
 * when a head moved.
 */
@Injectable()
export class ChainAnchors implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChainAnchors.name);
  private readonly keys: AnchorKeyring;
  private readonly refusals: Counter;
  /** the break last sent to the compliance channel: a forgery still there at the next pass is logged and counted, not sent again */
  private lastAlerted: string | null = null;
  private readonly job = new PeriodicJob<AnchorOutcome>(
    'ledger.chain-anchors',
    () => this.anchor(),
    (error: unknown) => this.logger.error({ err: error }, 'ledger chain anchoring failed; next tick'),
  );

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    private readonly channel: ComplianceChannel,
    metrics: MetricsService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    if (!config.LEDGER_CHAIN_ANCHOR_KEY)
      this.logger.warn('LEDGER_CHAIN_ANCHOR_KEY is not set: using the development key (never in production)');
    this.keys = new AnchorKeyring(
      Buffer.from(config.LEDGER_CHAIN_ANCHOR_KEY ?? DEVELOPMENT_KEY, 'utf8'),
      config.LEDGER_CHAIN_ANCHOR_RETIRED_KEYS,
    );
    this.refusals = metrics.counter(
      'ledger_chain_anchor_refusals_total',
      'Anchor passes that wrote nothing because the ledger chain since the previous anchor did not verify',
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.LEDGER_OUTBOX_POLL_MS <= 0) return;
    this.job.start(this.config.LEDGER_CHAIN_ANCHOR_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One pass of the anchor job now (tests and operators may call it), or the pass in progress. */
  anchorNow(): Promise<AnchorOutcome> {
    return this.job.runNow();
  }

  /** Every anchor's signature and records, read in the caller's snapshot (the verification's). */
  checkRecords(s: DbSession): Promise<AnchorRecordsCheck> {
    return checkAnchorRecords(s, this.keys);
  }

  private async anchor(): Promise<AnchorOutcome> {
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const outcome = await this.db.withSession(async (s) => {
      // One snapshot for the heads, the entries and the anchors: a head and the entries before it commit together.
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ');
      s.inTransaction = true;
      try {
        const [{ locked }] = await s.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [ANCHOR_LOCK]);
        const done: AnchorOutcome = locked ? await this.anchorLocked(s) : { status: 'BUSY' };
        await s.exec('COMMIT');
        s.inTransaction = false;
        return done;
      } finally {
        await s.rollback();
      }
    });
    // Outside the transaction: the alert's HTTP call never holds the lock or the snapshot.
    if (outcome.status === 'REFUSED') await this.refused(outcome, correlationId);
    return outcome;
  }

  private async anchorLocked(s: DbSession): Promise<AnchorOutcome> {
    const [last, before] = await s.query<AnchorRow>(`SELECT ${ANCHOR_COLUMNS} FROM ledger.chain_anchors ORDER BY n DESC LIMIT 2`);
    const heads = await s.query<HeadRow>(
      `SELECT id AS account_id, chain_seq::text AS seq, encode(chain_head, 'hex') AS hash FROM ledger.accounts WHERE chain_seq > 0 ORDER BY id`,
    );
    const anchored = await anchoredHeads(s);
    const moved = heads.filter((h) => anchored.get(h.account_id)?.seq !== Number(h.seq) || anchored.get(h.account_id)?.hash !== h.hash);
    if (moved.length === 0) return { status: 'UNCHANGED' };

    // What is about to be signed builds on the previous anchor: its own records first, then the links since.
    const base = last
      ? this.baseProblem(last, before, anchored)
      : anchored.size > 0
        ? anchorRecordsBreak('heads are recorded as anchored, but no anchor exists: anchors were deleted')
        : null;
    if (base) return { status: 'REFUSED', code: ANCHOR_REFUSED, brokenAccounts: 0, firstBreak: base };
    const segments: ChainSegment[] = moved.map((h) => ({
      accountId: h.account_id,
      from: anchored.get(h.account_id) ?? CHAIN_START,
      head: { seq: Number(h.seq), hash: h.hash },
    }));
    const breaks = await checkSegments(s, segments, last ? new Date(last.at) : null);
    if (breaks.length > 0) return { status: 'REFUSED', code: ANCHOR_REFUSED, brokenAccounts: breaks.length, firstBreak: breaks[0] };

    const fields: AnchorFields = {
      n: last ? Number(last.n) + 1 : 1,
      at: new Date().toISOString(),
      accounts: heads.length,
      entries: heads.reduce((sum, h) => sum + Number(h.seq), 0),
      digest: headsDigest(heads),
      movedDigest: headsDigest(moved),
    };
    const mac = anchorMac(this.keys.current, fields, last ? last.mac : NO_MAC);
    await s.query(
      `INSERT INTO ledger.chain_anchors (n, at, accounts, entries, heads_digest, moved_digest, mac, key_id)
       VALUES ($1, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), decode($7, 'hex'), $8)`,
      [fields.n, fields.at, fields.accounts, fields.entries, fields.digest, fields.movedDigest, mac, this.keys.currentId],
    );
    await s.query(
      `INSERT INTO ledger.chain_anchor_heads (account_id, anchor_n, seq, hash)
       SELECT h.account_id, $1, h.seq, decode(h.hash, 'hex') FROM unnest($2::uuid[], $3::bigint[], $4::text[]) AS h (account_id, seq, hash)`,
      [fields.n, moved.map((h) => h.account_id), moved.map((h) => h.seq), moved.map((h) => h.hash)],
    );
    await s.query(
      `INSERT INTO ledger.chain_anchored_heads (account_id, anchor_n, seq, hash)
       SELECT h.account_id, $1, h.seq, decode(h.hash, 'hex') FROM unnest($2::uuid[], $3::bigint[], $4::text[]) AS h (account_id, seq, hash)
       ON CONFLICT (account_id) DO UPDATE SET anchor_n = EXCLUDED.anchor_n, seq = EXCLUDED.seq, hash = EXCLUDED.hash`,
      [fields.n, moved.map((h) => h.account_id), moved.map((h) => h.seq), moved.map((h) => h.hash)],
    );
    // A copy outside the database: the log keeps what the newest anchor was (and the orchestrator's witness copies it).
    this.logger.log({ anchor: { ...fields, mac, moved: moved.length } }, 'ledger chain anchored');
    const { n, at, accounts, entries } = fields;
    return { status: 'WRITTEN', n, at, accounts, entries, moved: moved.length };
  }

  /**
   * Whether the previous anchor still says what it signed: its MAC, with the key it names (current or
   * retired; a key the ledger does not hold is a refusal), and the heads its records give, against
   * the digest it signed. Null when it holds.
   */
  private baseProblem(lastRow: AnchorRow, beforeRow: AnchorRow | undefined, anchored: Map<string, ChainHead>): ChainBreak | null {
    const last = anchorFields(lastRow);
    const problem = anchorRecordsBreak;
    if (last.n > 1 && Number(beforeRow?.n) !== last.n - 1) return problem(`anchor ${last.n - 1} is missing`);
    const key = this.keys.get(lastRow.key_id);
    if (!key)
      return problem(
        `anchor ${last.n} names key ${lastRow.key_id}, which this ledger does not hold (a retired key missing from LEDGER_CHAIN_ANCHOR_RETIRED_KEYS?)`,
      );
    if (!sameHex(anchorMac(key, last, beforeRow ? beforeRow.mac : NO_MAC), lastRow.mac)) {
      return problem(`anchor ${last.n} is not signed with the key it names (${lastRow.key_id})`);
    }
    const rows = [...anchored.entries()].map(([account_id, h]) => ({ account_id, seq: h.seq, hash: h.hash }));
    const entries = rows.reduce((sum, h) => sum + h.seq, 0);
    if (rows.length !== last.accounts || entries !== last.entries || headsDigest(rows) !== last.digest) {
      return problem(`the heads recorded for anchor ${last.n} are not the ones it signed`);
    }
    return null;
  }

  /** A refused pass: logged at ERROR with its code and counted every time; sent to the compliance channel when the break is new. */
  private async refused(outcome: Extract<AnchorOutcome, { status: 'REFUSED' }>, correlationId: string): Promise<void> {
    this.refusals.inc();
    const { code, brokenAccounts, firstBreak } = outcome;
    this.logger.error({ code, correlationId, brokenAccounts, firstBreak }, 'ledger chain anchor refused: the chain does not verify');
    const key = JSON.stringify(firstBreak);
    if (key === this.lastAlerted) return;
    const message = {
      text: `Ledger chain anchor refused (${code}): ${firstBreak.kind} on account ${firstBreak.accountId ?? '(anchor records)'}: ${firstBreak.detail}`,
      code,
      correlationId,
      brokenAccounts,
      firstBreak,
    };
    if (await this.channel.send(this.config.LEDGER_INTEGRITY_ALERT_URL, message, correlationId)) this.lastAlerted = key;
  }
}

/**
 * Per account, the head the latest anchor recorded: `chain_anchored_heads`, which the job keeps in
 * step with the anchors (one row per account, not the whole history). Only trusted once checked
 * against the last anchor's signed digest (baseProblem); a row of a later anchor than `n` (anchors
 * deleted under it) makes that check fail.
 */
async function anchoredHeads(s: DbSession): Promise<Map<string, ChainHead>> {
  const rows = await s.query<HeadRow>(
    `SELECT account_id, seq::text AS seq, encode(hash, 'hex') AS hash FROM ledger.chain_anchored_heads ORDER BY account_id`,
  );
  return new Map(rows.map((r) => [r.account_id, { seq: Number(r.seq), hash: r.hash }]));
}
