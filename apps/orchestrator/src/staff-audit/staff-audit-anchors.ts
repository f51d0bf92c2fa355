import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { PeriodicJob, queryRows, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import type { AuditAnchorView, AuditChainCheckView, ChainProblem } from './staff-audit.views';

/** Development-only key: production refuses to boot without STAFF_AUDIT_ANCHOR_KEY (assertOrchestratorProductionConfig). */
const DEVELOPMENT_KEY = 'development-only-staff-audit-anchor-key-not-for-production';
/** pg advisory lock key ("anchor" as a number): one writer of anchors at a time, across replicas. */
const ANCHOR_LOCK = 0x616e63686f72;
/** what the first anchor's MAC chains to */
const NO_MAC = '00'.repeat(32);

interface AnchorRow {
  n: string;
  seq: string;
  hash: string;
  at: Date;
  mac: string;
  /** the hash the trail holds today at the anchored seq; null when no record holds it */
  chain_hash: string | null;
}

interface WalkRow {
  intact: boolean;
  checked: string;
  broken_seq: string | null;
  problem: string | null;
  head_seq: string;
  head_hash: string;
  walked_from: string;
}

export interface ChainCheckOptions {
  /** walk from this seq (records before it are taken as they are) */
  fromSeq?: number;
  /** walk from the first record */
  full?: boolean;
}

/**
 * Checks the chain against the orchestrator's anchors and writes new anchors.
 *
 * An anchor is a (seq, hash) of the chain that a check found intact, with the time and an
 * HMAC-SHA256 under STAFF_AUDIT_ANCHOR_KEY over those and the MAC of the anchor before. The key
 * never reaches the database: whoever owns the database can delete or rewrite records and move the
 * chain head, but cannot make an anchor that verifies. So a check that finds every anchor's MAC
 * valid and every anchored (seq, hash) still in the trail knows the trail up to the last anchor is
 * the one that was anchored, and needs to walk only the records after it.
 *
 * One writer at a time (a transaction-scoped advisory lock): `/verify` waits for it, the periodic
 * pass skips a turn when another replica holds it.
 */
@Injectable()
export class StaffAuditAnchors implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(StaffAuditAnchors.name);
  private readonly key: Buffer;
  private readonly job = new PeriodicJob<AuditChainCheckView | null>(
    'orchestrator.staff-audit-anchors',
    () => this.pass(),
    (error: unknown) => this.logger.error({ msg: 'staff audit anchoring failed; next tick', err: error }),
  );

  constructor(
    private readonly db: DataSource,
    private readonly config: OrchestratorConfig,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    if (!config.STAFF_AUDIT_ANCHOR_KEY) {
      this.logger.warn('STAFF_AUDIT_ANCHOR_KEY is not set: using the development key (refused in production)');
    }
    this.key = Buffer.from(config.STAFF_AUDIT_ANCHOR_KEY ?? DEVELOPMENT_KEY, 'utf8');
  }

  onApplicationBootstrap(): void {
    this.job.start(this.config.STAFF_AUDIT_ANCHOR_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** The check of `/verify`: waits for a concurrent one, anchors the head when it covered everything since the last anchor. */
  check(options: ChainCheckOptions = {}): Promise<AuditChainCheckView> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock($1)`, [ANCHOR_LOCK]);
      return this.checkLocked(m, options);
    });
  }

  /** The periodic pass: the default check, unless another replica is at it; a broken chain is logged as an error. */
  async pass(): Promise<AuditChainCheckView | null> {
    const result = await this.db.transaction(async (m) => {
      const [{ locked }] = await queryRows<{ locked: boolean }>(m, `SELECT pg_try_advisory_xact_lock($1) AS locked`, [ANCHOR_LOCK]);
      return locked ? this.checkLocked(m, {}) : null;
    });
    if (result && !result.intact) this.logger.error({ msg: 'staff audit trail is broken: no anchor written', check: result });
    return result;
  }

  mac(n: number, seq: number, hash: string, at: Date, prevMac: string): string {
    return createHmac('sha256', this.key).update(`staff-audit-anchor:v1|${n}|${seq}|${hash}|${at.toISOString()}|${prevMac}`).digest('hex');
  }

  private async checkLocked(m: EntityManager, options: ChainCheckOptions): Promise<AuditChainCheckView> {
    const anchors = await queryRows<AnchorRow>(
      m,
      `SELECT a.n, a.seq, encode(a.hash, 'hex') AS hash, a.at, encode(a.mac, 'hex') AS mac, encode(t.hash, 'hex') AS chain_hash
         FROM orchestrator.staff_audit_anchors a LEFT JOIN orchestrator.staff_audit_trail t ON t.seq = a.seq
        ORDER BY a.n`,
    );
    let last: AnchorRow | null = null;
    let prevMac = NO_MAC;
    for (const [i, a] of anchors.entries()) {
      const n = Number(a.n);
      const problem: ChainProblem | null =
        n !== i + 1 || !sameHex(this.mac(n, Number(a.seq), a.hash, new Date(a.at), prevMac), a.mac)
          ? 'ANCHOR_INVALID'
          : a.chain_hash === null
            ? 'ANCHOR_MISSING'
            : a.chain_hash !== a.hash
              ? 'ANCHOR_MISMATCH'
              : null;
      if (problem) {
        const [head] = await queryRows<{ seq: string; hash: string }>(
          m,
          `SELECT last_seq AS seq, encode(last_hash, 'hex') AS hash FROM orchestrator.staff_audit_chain_head WHERE id`,
        );
        return {
          intact: false,
          from: null,
          checked: 0,
          firstBroken: { seq: Number(a.seq), problem, anchor: n },
          head: { seq: Number(head.seq), hash: head.hash },
          anchors: { checked: i, last: last && toView(last) },
          anchored: null,
        };
      }
      prevMac = a.mac;
      last = a;
    }

    const anchoredSeq = last ? Number(last.seq) : 0;
    const from = options.full ? 1 : (options.fromSeq ?? anchoredSeq + 1);
    const [walk] = await queryRows<WalkRow>(m, `SELECT * FROM orchestrator.staff_audit_verify($1)`, [from]);
    const head = { seq: Number(walk.head_seq), hash: walk.head_hash };
    const walkedFrom = Number(walk.walked_from);
    const result: AuditChainCheckView = {
      intact: walk.intact,
      from: walkedFrom,
      checked: Number(walk.checked),
      firstBroken: walk.broken_seq === null ? null : { seq: Number(walk.broken_seq), problem: walk.problem as ChainProblem, anchor: null },
      head,
      anchors: { checked: anchors.length, last: last && toView(last) },
      anchored: null,
    };
    // Anchor the head only when this walk covered every record since the last anchor.
    if (result.intact && head.seq > anchoredSeq && walkedFrom <= anchoredSeq + 1) {
      const n = anchors.length + 1;
      const at = new Date();
      const mac = this.mac(n, head.seq, head.hash, at, prevMac);
      await m.query(
        `INSERT INTO orchestrator.staff_audit_anchors (n, seq, hash, at, mac) VALUES ($1, $2, decode($3, 'hex'), $4, decode($5, 'hex'))`,
        [n, head.seq, head.hash, at, mac],
      );
      result.anchored = { n, seq: head.seq, hash: head.hash, at: at.toISOString() };
      result.anchors.last = result.anchored;
      // A copy outside the database: the log keeps what the newest anchor was.
      this.logger.log({ msg: 'staff audit trail anchored', anchor: { ...result.anchored, mac } });
    }
    return result;
  }
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

function toView(a: AnchorRow): AuditAnchorView {
  return { n: Number(a.n), seq: Number(a.seq), hash: a.hash, at: new Date(a.at).toISOString() };
}
