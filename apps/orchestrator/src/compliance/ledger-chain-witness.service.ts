import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import type {
  LedgerChainAnchorView,
  LedgerChainBreakView,
  LedgerChainVerificationRecordView,
  LedgerChainVerificationView,
} from '@mm/contracts';
import type { ErrorCode } from '@mm/errors';
import { MetricsService, PeriodicJob, queryRows, ALWAYS_LEADER, JOB_LEASE, type JobLease, withSessionLock } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { ComplianceLedgerClient } from './compliance-ledger.client';

/** The stable code of a rollback the witness found, in its log line. */
export const ANCHOR_ROLLED_BACK = 'LEDGER_CHAIN_ANCHOR_ROLLED_BACK' satisfies ErrorCode;
/** Session advisory lock: one witness pass at a time across replicas. */
const WITNESS_LOCK = 'ledger-chain-witness';

/** An anchor as the witness copied it. */
export interface WitnessedAnchor {
  n: number;
  signedAt: string;
  mac: string;
  keyId: string;
}

/** What one pass of the witness job did. */
export type WitnessOutcome =
  /** the ledger's newest anchor was new: copied */
  | { status: 'RECORDED'; n: number }
  /** nothing new (or no anchor yet) */
  | { status: 'UNCHANGED'; n: number | null }
  /** the ledger no longer holds the last anchor witnessed as it was: nothing copied, logged at ERROR */
  | { status: 'ROLLED_BACK'; witnessed: WitnessedAnchor; found: string }
  /** another replica holds the lock */
  | { status: 'BUSY' };

interface WitnessRow {
  n: string;
  signed_at: Date;
  mac: string;
  key_id: string;
}

/**
 * The witness of the ledger chain's anchors (docs/ledger-chain.md#the-witness). The ledger's anchors
 * are signed with a key its database never sees, but they live in that database: whoever owns it can
 * delete the newest anchors, rewrite history and recompute every hash, and the ledger's own check
 * sees a complete, correctly signed (shorter) list. The orchestrator keeps, in its own database, a
 * copy of each newest anchor (number, time, MAC) it fetched from the ledger, and:
 *
 * - every LEDGER_CHAIN_WITNESS_INTERVAL_MS, on one replica, checks the ledger still holds the last
 *   anchor it copied with the same MAC, then copies the newest one when it is new; a rollback is
 *   logged at ERROR with LEDGER_CHAIN_ANCHOR_ROLLED_BACK and counted (nothing is copied then);
 * - adds the same check to every verification an officer runs through the orchestrator: the ledger
 *   must have verified an anchor at least as recent as the witnessed one, holding it with the same
 *   MAC; else the verification is BROKEN with kind ANCHOR_ROLLED_BACK.
 */
@Injectable()
export class LedgerChainWitness implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LedgerChainWitness.name);
  private readonly rollbacks: Counter;
  private readonly job = new PeriodicJob<WitnessOutcome>(
    'orchestrator.ledger-chain-witness',
    () => this.pass(),
    (error: unknown) => this.logger.error({ err: error }, 'ledger chain witness pass failed; next tick'),
  );

  constructor(
    private readonly db: DataSource,
    private readonly ledger: ComplianceLedgerClient,
    private readonly config: OrchestratorConfig,
    metrics: MetricsService,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    this.rollbacks = metrics.counter(
      'ledger_chain_witness_rollbacks_total',
      'Witness passes that found the ledger no longer holding the last chain anchor the orchestrator copied, as it was',
    );
  }

  onApplicationBootstrap(): void {
    this.job.start(this.config.LEDGER_CHAIN_WITNESS_INTERVAL_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One pass now (tests, operators), or the pass in progress. */
  runNow(): Promise<WitnessOutcome> {
    return this.job.runNow();
  }

  /** The highest anchor witnessed; null before the first. */
  async highest(): Promise<WitnessedAnchor | null> {
    const [row] = await queryRows<WitnessRow>(
      this.db,
      `SELECT n::text AS n, signed_at, mac, key_id FROM orchestrator.ledger_chain_witness ORDER BY n DESC LIMIT 1`,
    );
    return row ? { n: Number(row.n), signedAt: new Date(row.signed_at).toISOString(), mac: row.mac, keyId: row.key_id } : null;
  }

  /**
   * The ledger's verification with the witness's check added, recorded in `ledger_chain_witness_checks`.
   * A rollback makes it BROKEN: its break comes first (everything the ledger verified is in doubt),
   * and the anchor's status is MISMATCH.
   */
  async judge(result: LedgerChainVerificationView): Promise<LedgerChainVerificationView> {
    const witnessed = await this.highest();
    const rolledBack = witnessed ? await this.rollback(witnessed, result.anchor.status === 'NONE' ? null : result.anchor.n) : null;
    await queryRows(
      this.db,
      `INSERT INTO orchestrator.ledger_chain_witness_checks (verification_id, witnessed_n, outcome, break) VALUES ($1, $2, $3, $4::jsonb)`,
      [
        result.id,
        witnessed?.n ?? null,
        witnessed ? (rolledBack ? 'ROLLED_BACK' : 'CONFIRMED') : 'NO_WITNESS',
        rolledBack && JSON.stringify(rolledBack),
      ],
    );
    if (!rolledBack) return result;
    this.logger.error(
      { code: ANCHOR_ROLLED_BACK, verificationId: result.id, witnessed, break: rolledBack },
      'ledger chain anchors rolled back',
    );
    return withBreak(result, rolledBack);
  }

  /** Past verifications with the witness's verdict on each (a rollback found then makes the record BROKEN). */
  async overlay(records: LedgerChainVerificationRecordView[]): Promise<LedgerChainVerificationRecordView[]> {
    if (records.length === 0) return records;
    const rows = await queryRows<{ verification_id: string; break: LedgerChainBreakView }>(
      this.db,
      `SELECT verification_id, break FROM orchestrator.ledger_chain_witness_checks WHERE verification_id = ANY($1::uuid[]) AND outcome = 'ROLLED_BACK'`,
      [records.map((r) => r.id)],
    );
    const broken = new Map(rows.map((r) => [r.verification_id, r.break]));
    return records.map((r) => (broken.has(r.id) ? withBreak(r, broken.get(r.id)!) : r));
  }

  /**
   * Why the ledger's anchors are behind the witnessed one, or hold it with another MAC; null when they
   * do not. `verifiedN`: the newest anchor the ledger's verification checked (null: it found none).
   */
  private async rollback(witnessed: WitnessedAnchor, verifiedN: number | null): Promise<LedgerChainBreakView | null> {
    if (verifiedN === null) return rolledBackBreak(witnessed, 'no anchor at all', 'the ledger reports no anchor at all');
    if (verifiedN < witnessed.n) {
      return rolledBackBreak(witnessed, `anchor ${verifiedN} as its newest`, `the ledger's newest anchor is ${verifiedN}`);
    }
    const held = await this.ledger.chainAnchor(witnessed.n);
    if (!held) return rolledBackBreak(witnessed, 'no such anchor', `the ledger no longer holds anchor ${witnessed.n}`);
    if (held.mac !== witnessed.mac) {
      return rolledBackBreak(
        witnessed,
        held.mac,
        `the ledger holds anchor ${witnessed.n} with another MAC: it was re-signed over another history`,
      );
    }
    return null;
  }

  private async pass(): Promise<WitnessOutcome> {
    let outcome: WitnessOutcome = { status: 'BUSY' };
    await withSessionLock(this.db, 'hashtextextended($1, 0)', [WITNESS_LOCK], async () => {
      outcome = await this.witness();
    });
    return outcome;
  }

  private async witness(): Promise<WitnessOutcome> {
    const witnessed = await this.highest();
    const latest = await this.ledger.chainAnchor('latest');
    if (witnessed) {
      const problem = await this.rollback(witnessed, latest?.n ?? null);
      if (problem) {
        this.rollbacks.inc();
        this.logger.error(
          { code: ANCHOR_ROLLED_BACK, witnessed, found: problem.found },
          `ledger chain anchors rolled back: ${problem.detail}`,
        );
        return { status: 'ROLLED_BACK', witnessed, found: problem.found };
      }
    }
    if (!latest || (witnessed && latest.n <= witnessed.n)) return { status: 'UNCHANGED', n: witnessed?.n ?? null };
    await this.record(latest);
    return { status: 'RECORDED', n: latest.n };
  }

  private async record(a: LedgerChainAnchorView): Promise<void> {
    await queryRows(
      this.db,
      `INSERT INTO orchestrator.ledger_chain_witness (n, signed_at, mac, key_id) VALUES ($1, $2, $3, $4) ON CONFLICT (n) DO NOTHING`,
      [a.n, a.at, a.mac, a.keyId],
    );
  }
}

function rolledBackBreak(witnessed: WitnessedAnchor, found: string, why: string): LedgerChainBreakView {
  return {
    kind: 'ANCHOR_ROLLED_BACK',
    accountId: null,
    entryId: null,
    chainSeq: null,
    transactionId: null,
    referenceId: null,
    expected: witnessed.mac,
    found,
    detail: `the orchestrator witnessed anchor ${witnessed.n} (signed ${witnessed.signedAt}); ${why}`,
  };
}

function withBreak<T extends LedgerChainVerificationView | LedgerChainVerificationRecordView>(r: T, b: LedgerChainBreakView): T {
  return {
    ...r,
    status: 'BROKEN',
    firstBreak: b,
    breaks: [b, ...(r.breaks ?? [])],
    anchor: { ...r.anchor, status: r.anchor.status === 'NONE' ? 'NONE' : 'MISMATCH' },
  };
}
