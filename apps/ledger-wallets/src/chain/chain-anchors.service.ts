import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '@mm/platform';
import type { DbSession } from '../db/db-session';
import { LedgerDb } from '../db/ledger-db.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';

/** Development-only key: never signs in production (see the constructor). */
const DEVELOPMENT_KEY = 'development-only-ledger-chain-anchor-key-not-for-production';
/** Advisory lock ("lchain" as a number): one writer of anchors at a time, across replicas. */
export const ANCHOR_LOCK = 0x6c636861696e;
/** what the first anchor's MAC chains to */
const NO_MAC = '00'.repeat(32);

interface AnchorRow {
  n: string;
  at: Date;
  accounts: string;
  entries: string;
  heads_digest: string;
  mac: string;
}

interface HeadRow {
  account_id: string;
  seq: string;
  hash: string;
}

/** The state the last anchor signed, once its signature and its records have been checked. */
export type AnchoredState =
  | { status: 'NONE' }
  | { status: 'MISMATCH'; n: number; at: string; accounts: number; entries: number; detail: string }
  | { status: 'VERIFIED'; n: number; at: string; accounts: number; entries: number; heads: Map<string, { seq: number; hash: string }> };

export interface WrittenAnchor {
  n: number;
  at: string;
  accounts: number;
  entries: number;
  moved: number;
}

/** sha256 over "account:seq:hash\n" of every head, by account id: what an anchor signs. */
export function headsDigest(heads: Iterable<HeadRow>): string {
  const h = createHash('sha256');
  for (const r of heads) h.update(`${r.account_id}:${r.seq}:${r.hash}\n`);
  return h.digest('hex');
}

/**
 * Signed anchors of the ledger chain (docs/ledger-chain.md). Whoever owns the database can rewrite
 * entries and recompute every hash and head after them; what they cannot do is sign. An anchor
 * records every account's head (seq, hash) at a moment, through the heads that moved since the
 * anchor before (`chain_anchor_heads`), and an HMAC-SHA256 under LEDGER_CHAIN_ANCHOR_KEY over the
 * digest of all of them and the MAC of the anchor before. The key never reaches the database. A
 * verification then checks that each anchored head is still the hash at that place of its chain.
 *
 * Written every LEDGER_CHAIN_ANCHOR_INTERVAL_MS by one replica (a transaction-scoped advisory lock:
 * the others skip their turn), while the background jobs run (LEDGER_OUTBOX_POLL_MS > 0), and only
 * when a head moved.
 */
@Injectable()
export class ChainAnchors implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChainAnchors.name);
  private readonly key: Buffer;
  private readonly unkeyedProduction: boolean;
  private readonly job = new PeriodicJob<WrittenAnchor | null>(
    () => this.anchor(),
    (error: unknown) => this.logger.error({ err: error }, 'ledger chain anchoring failed; next tick'),
  );

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
  ) {
    // In production the development key would sign anchors anyone can forge: none are written then
    // (compose requires the key; a production process started without it, as the benchmarks start the
    // ledger, logs this at every boot and the verification reports the anchors it cannot check).
    this.unkeyedProduction = !config.LEDGER_CHAIN_ANCHOR_KEY && config.NODE_ENV === 'production';
    if (this.unkeyedProduction) this.logger.error('LEDGER_CHAIN_ANCHOR_KEY is not set in production: no chain anchor will be written');
    else if (!config.LEDGER_CHAIN_ANCHOR_KEY)
      this.logger.warn('LEDGER_CHAIN_ANCHOR_KEY is not set: using the development key (never in production)');
    this.key = Buffer.from(config.LEDGER_CHAIN_ANCHOR_KEY ?? DEVELOPMENT_KEY, 'utf8');
  }

  onApplicationBootstrap(): void {
    if (this.config.LEDGER_OUTBOX_POLL_MS <= 0 || this.unkeyedProduction) return;
    this.job.start(this.config.LEDGER_CHAIN_ANCHOR_INTERVAL_MS);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  mac(a: { n: number; at: string; accounts: number; entries: number; digest: string }, prevMac: string): string {
    return createHmac('sha256', this.key)
      .update(`ledger-chain-anchor:v1|${a.n}|${a.at}|${a.accounts}|${a.entries}|${a.digest}|${prevMac}`)
      .digest('hex');
  }

  /** Anchors the current heads now (the periodic job's pass; tests and operators may call it). Null: another replica is at it, or nothing moved. */
  anchorNow(): Promise<WrittenAnchor | null> {
    return this.job.runNow();
  }

  private async anchor(): Promise<WrittenAnchor | null> {
    if (this.unkeyedProduction) return null;
    return this.db.withSession(async (s) => {
      // One snapshot for the heads and the anchors: a head and the entries before it commit together.
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ');
      s.inTransaction = true;
      try {
        const [{ locked }] = await s.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [ANCHOR_LOCK]);
        const written = locked ? await this.anchorLocked(s) : null;
        await s.exec('COMMIT');
        s.inTransaction = false;
        return written;
      } finally {
        await s.rollback();
      }
    });
  }

  private async anchorLocked(s: DbSession): Promise<WrittenAnchor | null> {
    const [last] = await s.query<AnchorRow>(
      `SELECT n, at, accounts, entries, encode(heads_digest, 'hex') AS heads_digest, encode(mac, 'hex') AS mac
         FROM ledger.chain_anchors ORDER BY n DESC LIMIT 1`,
    );
    const heads = await s.query<HeadRow>(
      `SELECT id AS account_id, chain_seq::text AS seq, encode(chain_head, 'hex') AS hash FROM ledger.accounts WHERE chain_seq > 0 ORDER BY id`,
    );
    const anchored = last ? await anchoredHeads(s, Number(last.n)) : new Map<string, { seq: number; hash: string }>();
    const moved = heads.filter((h) => anchored.get(h.account_id)?.seq !== Number(h.seq) || anchored.get(h.account_id)?.hash !== h.hash);
    if (moved.length === 0) return null;
    const n = last ? Number(last.n) + 1 : 1;
    const at = new Date().toISOString();
    const entries = heads.reduce((sum, h) => sum + Number(h.seq), 0);
    const digest = headsDigest(heads);
    const mac = this.mac({ n, at, accounts: heads.length, entries, digest }, last ? last.mac : NO_MAC);
    await s.query(
      `INSERT INTO ledger.chain_anchors (n, at, accounts, entries, heads_digest, mac, key_id)
       VALUES ($1, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), $7)`,
      [n, at, heads.length, entries, digest, mac, this.keyId()],
    );
    await s.query(
      `INSERT INTO ledger.chain_anchor_heads (account_id, anchor_n, seq, hash)
       SELECT h.account_id, $1, h.seq, decode(h.hash, 'hex') FROM unnest($2::uuid[], $3::bigint[], $4::text[]) AS h (account_id, seq, hash)`,
      [n, moved.map((h) => h.account_id), moved.map((h) => h.seq), moved.map((h) => h.hash)],
    );
    // A copy outside the database: the log keeps what the newest anchor was.
    this.logger.log({ anchor: { n, at, accounts: heads.length, entries, digest, mac, moved: moved.length } }, 'ledger chain anchored');
    return { n, at, accounts: heads.length, entries, moved: moved.length };
  }

  /** Which key signed (the first 8 hex of its sha256): tells a rotated key from a forged anchor in the records. */
  private keyId(): string {
    return createHash('sha256').update(this.key).digest('hex').slice(0, 8);
  }

  /**
   * The last anchor, checked: every anchor's MAC in turn (each chains the one before), then the
   * heads recorded for the last one against the digest it signed. Read in the caller's snapshot.
   */
  async lastAnchored(s: DbSession): Promise<AnchoredState> {
    const anchors = await s.query<AnchorRow>(
      `SELECT n, at, accounts, entries, encode(heads_digest, 'hex') AS heads_digest, encode(mac, 'hex') AS mac FROM ledger.chain_anchors ORDER BY n`,
    );
    if (anchors.length === 0) return { status: 'NONE' };
    let prevMac = NO_MAC;
    for (const [i, a] of anchors.entries()) {
      const fields = {
        n: Number(a.n),
        at: new Date(a.at).toISOString(),
        accounts: Number(a.accounts),
        entries: Number(a.entries),
        digest: a.heads_digest,
      };
      const mismatch = (detail: string): AnchoredState => ({
        status: 'MISMATCH',
        n: fields.n,
        at: fields.at,
        accounts: fields.accounts,
        entries: fields.entries,
        detail,
      });
      if (fields.n !== i + 1) return mismatch(`anchor ${fields.n} follows anchor ${i}: anchors are missing`);
      if (!sameHex(this.mac(fields, prevMac), a.mac)) return mismatch(`anchor ${fields.n} is not signed with LEDGER_CHAIN_ANCHOR_KEY`);
      prevMac = a.mac;
      if (i === anchors.length - 1) {
        const heads = await anchoredHeads(s, fields.n);
        const rows = [...heads.entries()].map(([account_id, h]) => ({ account_id, seq: String(h.seq), hash: h.hash }));
        const entries = rows.reduce((sum, h) => sum + Number(h.seq), 0);
        if (rows.length !== fields.accounts || entries !== fields.entries || headsDigest(rows) !== fields.digest) {
          return mismatch(`the heads recorded for anchor ${fields.n} are not the ones it signed`);
        }
        return { status: 'VERIFIED', n: fields.n, at: fields.at, accounts: fields.accounts, entries: fields.entries, heads };
      }
    }
    return { status: 'NONE' };
  }
}

/** Per account, the latest head recorded at or before anchor `n`: the state that anchor signed. */
async function anchoredHeads(s: DbSession, n: number): Promise<Map<string, { seq: number; hash: string }>> {
  const rows = await s.query<HeadRow>(
    `SELECT DISTINCT ON (account_id) account_id, seq::text AS seq, encode(hash, 'hex') AS hash
       FROM ledger.chain_anchor_heads WHERE anchor_n <= $1 ORDER BY account_id, anchor_n DESC`,
    [n],
  );
  return new Map(rows.map((r) => [r.account_id, { seq: Number(r.seq), hash: r.hash }]));
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
