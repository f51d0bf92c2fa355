import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import type { LedgerChainAnchorStatus } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { MetricsService, currentContext } from '@mm/platform';
import type { AuditRequester } from '../audit/auditors';
import { LedgerDb } from '../db/ledger-db.service';
import { AnchorPointStream } from './chain-anchor-points';
import { ChainAnchors } from './chain-anchors.service';
import { CHAIN_WALK_SQL, type ChainEntryRow, GENESIS_HASH } from './chain-link';
import { untraceableTransactions } from './chain-sources';
import { AccountWalk, type AnchorPoint, type ChainBreak, type ChainHead, anchorRecordsBreak } from './chain-walk';

/** Advisory lock ("lverif"): one verification at a time across replicas, each is a full walk. */
const VERIFY_LOCK = 0x6c7665726966;
/** Rows per FETCH from the walk's cursor: the ledger is never held in memory whole. */
const FETCH_ROWS = 5_000;
/** Broken accounts listed (and stored) per run, earliest first; the count covers them all. */
export const BREAKS_LISTED = 50;

export interface ChainVerificationResult {
  id: string;
  correlationId: string;
  trigger: 'SCHEDULED' | 'ON_DEMAND';
  status: 'INTACT' | 'BROKEN';
  startedAt: string;
  finishedAt: string;
  accountsChecked: number;
  entriesChecked: number;
  brokenAccounts: number;
  firstBreak: ChainBreak | null;
  breaks: ChainBreak[];
  anchor: { status: LedgerChainAnchorStatus; n: number | null; at: string | null; accounts: number; entries: number };
  requestedBy: string;
}

export interface VerifyOptions {
  /** the operator who asked (through a platform service); none: the nightly integrity check */
  requester?: AuditRequester;
  /** the integrity check this run is part of */
  integrityCheckId?: string;
  /** wait for a running verification instead of refusing with LEDGER_CHAIN_VERIFICATION_RUNNING */
  wait?: boolean;
}

/**
 * Walks every account's chain in one read-only snapshot, recomputing each entry's hash in this
 * process (chain-link.ts), checks each account's head and every head each signed anchor recorded
 * (as the walk passes its place), and lists each broken account's earliest break, the earliest
 * tampering first (by when the broken entry was written). Each run is appended to
 * `ledger.chain_verifications` with who asked. Reads only: the entries are streamed through a
 * cursor, FETCH_ROWS at a time.
 */
@Injectable()
export class ChainVerifier {
  private readonly logger = new Logger(ChainVerifier.name);
  private readonly brokenGauge: Gauge;

  constructor(
    private readonly db: LedgerDb,
    private readonly anchors: ChainAnchors,
    metrics: MetricsService,
  ) {
    this.brokenGauge = metrics.gauge('ledger_chain_broken_accounts', 'Accounts whose hash chain the last verification found broken');
  }

  async verify(options: VerifyOptions = {}): Promise<ChainVerificationResult> {
    const { requester } = options;
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const startedAt = new Date();
    const walked = await this.db.withSession(async (s) => {
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      s.inTransaction = true;
      try {
        if (options.wait) {
          await s.query(`SELECT pg_advisory_xact_lock($1)`, [VERIFY_LOCK]);
        } else {
          const [{ locked }] = await s.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [VERIFY_LOCK]);
          if (!locked)
            throw new AppException(
              'LEDGER_CHAIN_VERIFICATION_RUNNING',
              'A verification of the ledger chain is already running; wait for its result',
            );
        }
        const anchored = await this.anchors.checkRecords(s);
        const headRows = await s.query<{ id: string; seq: string; hash: string }>(
          `SELECT id, chain_seq::text AS seq, encode(chain_head, 'hex') AS hash FROM ledger.accounts WHERE chain_seq > 0 ORDER BY id`,
        );
        const heads = new Map<string, ChainHead>(headRows.map((h) => [h.id, { seq: Number(h.seq), hash: h.hash }]));
        // Only the heads of anchors whose signature and records hold are checked against the chain.
        const points = await AnchorPointStream.open(s, anchored.trustedThrough);
        const walk = new Walk(heads, points, await untraceableTransactions(s));
        await s.exec(`DECLARE chain_walk NO SCROLL CURSOR FOR ${CHAIN_WALK_SQL}`);
        for (;;) {
          const rows = await s.query<ChainEntryRow>(`FETCH ${FETCH_ROWS} FROM chain_walk`);
          if (rows.length > 0) await points.fillThrough(rows[rows.length - 1].account_id);
          for (const row of rows) walk.add(row);
          if (rows.length < FETCH_ROWS) break;
        }
        await points.fillThrough(null);
        walk.finish();
        await s.exec('COMMIT');
        s.inTransaction = false;
        return { walk, anchored };
      } finally {
        await s.rollback();
      }
    });

    const { walk, anchored } = walked;
    const { last, problem } = anchored;
    const anchorBroken = problem !== null;
    // An anchor whose own records do not verify is a break of the whole ledger, named at no account,
    // dated by that anchor: history after it can no longer be vouched for.
    if (problem !== null) {
      walk.found.add(anchorRecordsBreak(problem.detail), problem.atUs);
    }
    const breaks = walk.found.list();
    const firstBreak = breaks[0] ?? null;
    const brokenAccounts = walk.brokenAccounts.size;
    const status = firstBreak ? 'BROKEN' : 'INTACT';
    const result: ChainVerificationResult = {
      id: randomUUID(),
      correlationId,
      trigger: requester ? 'ON_DEMAND' : 'SCHEDULED',
      status,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      accountsChecked: walk.accountsChecked,
      entriesChecked: walk.entriesChecked,
      brokenAccounts,
      firstBreak,
      breaks,
      anchor:
        last === null
          ? { status: 'NONE', n: null, at: null, accounts: 0, entries: 0 }
          : {
              status: !anchorBroken && !walk.anchorBroken ? 'VERIFIED' : 'MISMATCH',
              n: last.n,
              at: last.at,
              accounts: last.accounts,
              entries: last.entries,
            },
      requestedBy: requester ? requester.operator.id : 'scheduler',
    };
    await this.db.query(
      `INSERT INTO ledger.chain_verifications (id, trigger, status, started_at, finished_at, accounts_checked, entries_checked, broken_accounts,
         first_break, anchor, requested_by, requested_by_roles, caller, request_id, correlation_id, integrity_check_id, breaks)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13, $14, $15, $16, $17::jsonb)`,
      [
        result.id,
        result.trigger,
        result.status,
        result.startedAt,
        result.finishedAt,
        result.accountsChecked,
        result.entriesChecked,
        result.brokenAccounts,
        firstBreak ? JSON.stringify(firstBreak) : null,
        JSON.stringify(result.anchor),
        result.requestedBy,
        requester?.operator.roles ?? [],
        requester?.caller ?? null,
        requester?.requestId ?? null,
        correlationId,
        options.integrityCheckId ?? null,
        JSON.stringify(breaks),
      ],
    );
    this.brokenGauge.set(brokenAccounts);
    const who = { requestedBy: result.requestedBy, caller: requester?.caller, requestId: requester?.requestId };
    if (status === 'BROKEN') {
      this.logger.error(
        { correlationId, verificationId: result.id, ...who, brokenAccounts, firstBreak, anchor: result.anchor },
        'ledger chain is broken',
      );
    } else {
      this.logger.log(
        { correlationId, verificationId: result.id, ...who, entriesChecked: result.entriesChecked, anchor: result.anchor },
        'ledger chain intact',
      );
    }
    return result;
  }

  async recent(limit: number): Promise<Record<string, unknown>[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `SELECT id, trigger, status, started_at AS "startedAt", finished_at AS "finishedAt", accounts_checked AS "accountsChecked",
              entries_checked AS "entriesChecked", broken_accounts AS "brokenAccounts", first_break AS "firstBreak",
              COALESCE(breaks, CASE WHEN first_break IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(first_break) END) AS breaks, anchor,
              requested_by AS "requestedBy", requested_by_roles AS "requestedByRoles", caller, request_id AS "requestId",
              correlation_id AS "correlationId", integrity_check_id AS "integrityCheckId"
         FROM ledger.chain_verifications ORDER BY started_at DESC, id LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      ...r,
      startedAt: new Date(r.startedAt as string).toISOString(),
      finishedAt: new Date(r.finishedAt as string).toISOString(),
      accountsChecked: Number(r.accountsChecked),
      entriesChecked: Number(r.entriesChecked),
      brokenAccounts: Number(r.brokenAccounts),
    }));
  }
}

/**
 * The earliest breaks of a run, one per broken account, ordered by when the broken entry was written
 * (then account id): the first is the earliest tampering found, whichever account it is on. Only the
 * BREAKS_LISTED earliest are kept.
 */
export class EarliestBreaks {
  private items: Array<{ us: bigint; seq: number; at: ChainBreak }> = [];
  private added = 0;

  add(at: ChainBreak, us: string | null): void {
    this.items.push({ us: us === null ? LAST : BigInt(us), seq: this.added++, at });
    if (this.items.length > 4 * BREAKS_LISTED) this.trim();
  }

  list(): ChainBreak[] {
    this.trim();
    return this.items.map((i) => i.at);
  }

  private trim(): void {
    this.items.sort((x, y) => (x.us < y.us ? -1 : x.us > y.us ? 1 : byAccount(x.at, y.at) || x.seq - y.seq));
    this.items.length = Math.min(this.items.length, BREAKS_LISTED);
  }
}

/** Dates a break with no entry to date it by after every dated one. */
const LAST = BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n;
const byAccount = (x: ChainBreak, y: ChainBreak): number =>
  (x.accountId ?? '') < (y.accountId ?? '') ? -1 : (x.accountId ?? '') > (y.accountId ?? '') ? 1 : 0;

/** The walk's state across cursor pages: the account being walked, and what was found so far. */
class Walk {
  accountsChecked = 0;
  entriesChecked = 0;
  readonly brokenAccounts = new Set<string>();
  readonly found = new EarliestBreaks();
  /** some anchored head is no longer in its chain */
  anchorBroken = false;
  private current: AccountWalk | null = null;
  private readonly seen = new Set<string>();

  constructor(
    private readonly heads: Map<string, ChainHead>,
    private readonly points: AnchorPointStream,
    private readonly untraceable: ReadonlySet<string>,
  ) {}

  /** Rows in the cursor's order; the anchored heads of their accounts must be buffered (fillThrough) first. */
  add(row: ChainEntryRow): void {
    if (row.account_id !== this.current?.accountId) {
      this.close();
      // Accounts an anchor recorded but with no entry left, before this one.
      for (const [accountId, points] of this.points.takeBefore(row.account_id)) this.walkEmpty(accountId, points);
      this.current = this.open(row.account_id, this.points.take(row.account_id));
    }
    this.current.add(row);
    this.entriesChecked++;
  }

  /** Once every row was added and every anchored head buffered. */
  finish(): this {
    this.close();
    for (const [accountId, points] of this.points.takeBefore(null)) this.walkEmpty(accountId, points);
    // Accounts whose row names a head but that have no entry left at all.
    for (const accountId of this.heads.keys()) if (!this.seen.has(accountId)) this.walkEmpty(accountId, []);
    return this;
  }

  private walkEmpty(accountId: string, points: AnchorPoint[]): void {
    this.current = this.open(accountId, points);
    this.close();
  }

  private open(accountId: string, points: AnchorPoint[]): AccountWalk {
    this.seen.add(accountId);
    return new AccountWalk(accountId, this.heads.get(accountId) ?? { seq: 0, hash: GENESIS_HASH }, points, undefined, this.untraceable);
  }

  private close(): void {
    if (!this.current) return;
    const walk = this.current.finish();
    this.current = null;
    this.accountsChecked++;
    const id = walk.accountId;
    if (walk.anchorBreak) this.anchorBroken = true;
    const earliest = walk.earliest();
    if (!earliest) return;
    this.brokenAccounts.add(id);
    this.found.add(earliest.at, earliest.us);
  }
}
