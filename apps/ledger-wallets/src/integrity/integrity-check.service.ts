import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { MetricsService, PeriodicJob, currentContext, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import type { LedgerChainIntegrityView } from '@mm/contracts';
import type { AuditRequester } from '../audit/auditors';
import { ChainVerifier } from '../chain/chain-verifier.service';
import { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import { isUniqueViolation } from '../db/sql-errors';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { ComplianceChannel } from '../common/compliance-channel.service';
import { type StoredAccountGap, type StoredCurrencyTotal, storedAccountGaps, storedCurrencyTotals } from './stored-check-sums';

/**
 * What is read from an account row (stored, available, frozen) is a JSON number: the columns are
 * kept within ±(2^53 − 1). What is summed over entries or over accounts is computed as bigint and
 * carried as a decimal string: a damaged ledger, the very thing the check looks for, can put such a
 * sum beyond what a JSON number carries exactly, and the check must report it, not refuse.
 */
export interface AccountGap {
  accountId: string;
  currency: string;
  accountType: string;
  stored: number;
  /** Σ credits − Σ debits of its entries, decimal string */
  recomputed: string;
  /** stored − recomputed, decimal string */
  gap: string;
  available: number;
  frozen: number;
}

export interface CurrencyTotal {
  currency: string;
  /** Σ stored balances, decimal string ("0" when every movement is double entry) */
  storedTotal: string;
  /** Σ credits − Σ debits over every entry, decimal string ("0" when every transaction balances) */
  ledgerTotal: string;
  /** storedTotal − ledgerTotal, decimal string */
  gap: string;
}

export interface IntegrityCheckResult {
  id: string;
  correlationId: string;
  trigger: 'SCHEDULED' | 'ON_DEMAND';
  startedAt: string;
  finishedAt: string;
  accountsChecked: number;
  /** accounts with a gap (all of them, however many) plus currencies whose totals are not zero */
  gapCount: number;
  /** accounts with a gap, all of them; `gaps` lists the first MAX_GAPS_LISTED by id */
  accountGapCount: number;
  /** how many accounts `gaps` lists (≤ MAX_GAPS_LISTED, < accountGapCount when the list was cut) */
  gapsListed: number;
  status: 'OK' | 'GAPS_FOUND';
  currencyTotals: CurrencyTotal[];
  gaps: AccountGap[];
  /** `scheduler` for the nightly run, else the id of the operator whose access token came with the request */
  requestedBy: string;
  alertSent: boolean;
  /** the hash chain's verification, run after the balances (docs/ledger-chain.md); a broken chain counts as one gap */
  ledgerChain: LedgerChainIntegrityView | null;
}

/** Accounts listed in a check's `gaps` (the count is always complete). */
export const MAX_GAPS_LISTED = 1_000;
/**
 * Tries of a check's compliance alert, the first included: one in the run itself, the others by the
 * background re-send (every ALERT_RESEND_EVERY_MS), after which the failure stands recorded.
 */
export const ALERT_ATTEMPTS = 3;

/** Past this long after a check, a first alert try that left no record never happened (its timeout is 5 s). */
const FIRST_TRY_GRACE_MS = 60_000;
const ALERT_RESEND_EVERY_MS = 60_000;

/** What an alert is made of: the facts of the check it announces. */
type AlertedCheck = Pick<IntegrityCheckResult, 'id' | 'correlationId' | 'gapCount' | 'currencyTotals' | 'gaps'> & {
  ledgerChain?: LedgerChainIntegrityView | null;
};

/** A check whose alert the background re-send tried again, and whether that try was acknowledged. */
export interface ResentAlert {
  id: string;
  status: IntegrityCheckResult['status'];
  alertSent: boolean;
}

/**
 * The nightly integrity check (docs/ledger.md "Audit and the integrity job"): every account's stored balance against its entries and its
 * available/frozen split, plus the global sum per currency, in one read-only snapshot. It never
 * changes ledger data; it only appends its own row to balance_integrity_checks (append-only, kept
 * forever, naming who asked: `scheduler` or the operator), sets `ledger_integrity_gap_count` to the
 * full count, and on any gap (alert threshold zero) logs at ERROR with the correlation id and
 * alerts the compliance channel: one try within the run (a request never waits on retries), each
 * try appended to balance_integrity_alerts; an alert not acknowledged is sent again by a background
 * job (while the background jobs run, i.e. LEDGER_OUTBOX_POLL_MS > 0, and a channel is configured)
 * up to ALERT_ATTEMPTS tries in all.
 */
@Injectable()
export class IntegrityCheckService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IntegrityCheckService.name);
  private readonly gapGauge: Gauge;
  private readonly resender = new PeriodicJob(
    'ledger.integrity-alert-resend',
    () => this.resendPass(),
    (error) => this.logger.warn({ err: error }, 'integrity alert re-send failed'),
  );

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    private readonly channel: ComplianceChannel,
    metrics: MetricsService,
    private readonly chain: ChainVerifier,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {
    this.gapGauge = metrics.gauge('ledger_integrity_gap_count', 'Gaps found by the last ledger integrity check (accounts + currencies)');
  }

  onApplicationBootstrap(): void {
    if (this.config.LEDGER_OUTBOX_POLL_MS <= 0 || !this.config.LEDGER_INTEGRITY_ALERT_URL) return;
    this.resender.start(ALERT_RESEND_EVERY_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.resender.stop();
  }

  /**
   * One run: with `requester`, on demand by that operator (through a platform service); without,
   * the nightly schedule's.
   */
  async run(requester?: AuditRequester): Promise<IntegrityCheckResult> {
    const trigger: IntegrityCheckResult['trigger'] = requester ? 'ON_DEMAND' : 'SCHEDULED';
    const requestedBy = requester ? requester.operator.id : 'scheduler';
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const startedAt = new Date();
    const { accounts, gaps, totals } = await this.db.withSession(async (s) => {
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      s.inTransaction = true;
      // `total` is counted before LIMIT applies (a window over every matching row): the list is
      // bounded, the count is not.
      const rows = await s.query<Record<string, string>>(
        `WITH net AS (
           SELECT account_id, sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) AS net FROM ledger.ledgers GROUP BY account_id)
         SELECT a.id, a.currency, a.account_type, a.balance::text, a.available_balance::text, a.frozen_balance::text,
                COALESCE(n.net, 0)::text AS recomputed, count(*) OVER ()::text AS total
         FROM ledger.accounts a LEFT JOIN net n ON n.account_id = a.id
         WHERE a.balance <> COALESCE(n.net, 0) OR a.balance <> a.available_balance + a.frozen_balance
         ORDER BY a.id LIMIT ${MAX_GAPS_LISTED}`,
      );
      const [count] = await s.query<{ n: string }>(`SELECT count(*)::text AS n FROM ledger.accounts`);
      const currencyRows = await s.query<{ currency: string; stored: string; ledger: string }>(
        `SELECT c.currency, COALESCE(st.total, 0)::text AS stored, COALESCE(lt.total, 0)::text AS ledger
         FROM (VALUES ('XAF'), ('XOF')) AS c (currency)
         LEFT JOIN (SELECT currency, sum(balance) AS total FROM ledger.accounts GROUP BY currency) st ON st.currency = c.currency
         LEFT JOIN (SELECT currency, sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) AS total FROM ledger.ledgers GROUP BY currency) lt
           ON lt.currency = c.currency
         ORDER BY c.currency`,
      );
      await s.exec('COMMIT');
      s.inTransaction = false;
      return { accounts: Number(count.n), gaps: rows, totals: currencyRows };
    });

    // Sums in exact integer arithmetic (PostgreSQL's numeric, then bigint): never rounded, never refused.
    const accountGaps: AccountGap[] = gaps.map((r) => ({
      accountId: r.id,
      currency: r.currency.trim(),
      accountType: r.account_type,
      stored: toMoney(r.balance),
      recomputed: BigInt(r.recomputed).toString(),
      gap: (BigInt(r.balance) - BigInt(r.recomputed)).toString(),
      available: toMoney(r.available_balance),
      frozen: toMoney(r.frozen_balance),
    }));
    const currencyTotals: CurrencyTotal[] = totals.map((t) => ({
      currency: t.currency,
      storedTotal: BigInt(t.stored).toString(),
      ledgerTotal: BigInt(t.ledger).toString(),
      gap: (BigInt(t.stored) - BigInt(t.ledger)).toString(),
    }));
    const accountGapCount = gaps.length > 0 ? Number(gaps[0].total) : 0;
    const id = randomUUID();
    // The chain's walk, in its own snapshot; it waits for a verification already running rather than skip the night.
    const verification = await this.chain.verify({ requester, integrityCheckId: id, wait: true });
    const ledgerChain: LedgerChainIntegrityView = {
      verificationId: verification.id,
      status: verification.status,
      brokenAccounts: verification.brokenAccounts,
      firstBreak: verification.firstBreak,
      anchorStatus: verification.anchor.status,
    };
    const gapCount =
      accountGapCount +
      totals.filter((t) => BigInt(t.stored) !== 0n || BigInt(t.ledger) !== 0n).length +
      (verification.status === 'BROKEN' ? 1 : 0);
    const finishedAt = new Date();
    await this.db.query(
      `INSERT INTO ledger.balance_integrity_checks (id, correlation_id, trigger, started_at, finished_at, accounts_checked, gap_count,
         account_gap_count, status, currency_totals, gaps, requested_by, requested_by_roles, caller, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13, $14, $15)`,
      [
        id,
        correlationId,
        trigger,
        startedAt,
        finishedAt,
        accounts,
        gapCount,
        accountGapCount,
        gapCount > 0 ? 'GAPS_FOUND' : 'OK',
        JSON.stringify(currencyTotals),
        JSON.stringify(accountGaps),
        requestedBy,
        requester?.operator.roles ?? [],
        requester?.caller ?? null,
        requester?.requestId ?? null,
      ],
    );
    this.gapGauge.set(gapCount);

    const result: IntegrityCheckResult = {
      id,
      correlationId,
      trigger,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      accountsChecked: accounts,
      gapCount,
      accountGapCount,
      gapsListed: accountGaps.length,
      status: gapCount > 0 ? 'GAPS_FOUND' : 'OK',
      currencyTotals,
      gaps: accountGaps,
      requestedBy,
      alertSent: false,
      ledgerChain,
    };
    const who = { requestedBy, caller: requester?.caller, requestId: requester?.requestId };
    if (gapCount > 0) {
      this.logger.error(
        { correlationId, checkId: id, ...who, gapCount, accountGapCount, gaps: accountGaps.slice(0, 20), currencyTotals, ledgerChain },
        'ledger integrity check found gaps',
      );
      result.alertSent = await this.alert(result, 1);
    } else {
      this.logger.log({ correlationId, checkId: id, ...who, accountsChecked: accounts }, 'ledger integrity check OK');
    }
    return result;
  }

  /**
   * One try at the compliance channel (JSON, 5 s timeout), the `attempt`-th for this check (0 when no
   * alert URL is configured: nothing is sent), appended to `balance_integrity_alerts`. A failed alert
   * is logged and recorded, never thrown: the check itself is already stored.
   */
  private async alert(check: AlertedCheck, attempt: number): Promise<boolean> {
    const url = this.config.LEDGER_INTEGRITY_ALERT_URL;
    const message = {
      text: `Ledger integrity check ${check.id}: ${check.gapCount} gap(s) found`,
      checkId: check.id,
      correlationId: check.correlationId,
      gapCount: check.gapCount,
      currencyTotals: check.currencyTotals,
      gaps: check.gaps.slice(0, 50),
      ...(check.ledgerChain ? { ledgerChain: check.ledgerChain } : {}),
    };
    const { delivered, error } = url
      ? await this.channel.deliver(url, message, check.correlationId)
      : { delivered: false, error: 'LEDGER_INTEGRITY_ALERT_URL is not set' };
    const attempts = url ? attempt : 0;
    try {
      await this.db.query(
        `INSERT INTO ledger.balance_integrity_alerts (check_id, attempts, delivered, last_error) VALUES ($1, $2, $3, $4)`,
        [check.id, attempts, delivered, delivered ? null : (error ?? null)],
      );
    } catch (insertError) {
      // Another instance's re-send recorded this try first: its record stands.
      if (!isUniqueViolation(insertError, 'UQ_balance_integrity_alerts_attempt')) throw insertError;
    }
    if (!delivered) {
      this.logger.error(
        { correlationId: check.correlationId, checkId: check.id, attempts, lastError: error, final: !url || attempts >= ALERT_ATTEMPTS },
        'integrity alert not delivered to the compliance channel',
      );
    }
    return delivered;
  }

  /**
   * Sends again, once each, the alerts of checks whose last try was not acknowledged and that have
   * tries left (the background job's pass; tests and operators may call it directly).
   */
  resendUndeliveredAlerts(): Promise<ResentAlert[]> {
    return this.resender.runNow();
  }

  private async resendPass(): Promise<ResentAlert[]> {
    if (!this.config.LEDGER_INTEGRITY_ALERT_URL) return [];
    const pending = await this.db.query<{
      id: string;
      correlation_id: string;
      status: IntegrityCheckResult['status'];
      gap_count: number;
      currency_totals: StoredCurrencyTotal[];
      gaps: StoredAccountGap[];
      attempts: number;
    }>(
      // A check with gaps and no try recorded at all is one whose process stopped between storing
      // it and recording its first try (which is made within the run): once that try would have
      // ended long ago, it is tried here as the first. Only for a day: checks stored before alerts
      // were recorded (migration 1764600000000) have no try either, and are not news to announce.
      `SELECT c.id, c.correlation_id, c.status, c.gap_count, c.currency_totals, c.gaps, coalesce(a.attempts, 0) AS attempts
       FROM ledger.balance_integrity_checks c
       LEFT JOIN LATERAL (SELECT attempts, delivered FROM ledger.balance_integrity_alerts WHERE check_id = c.id ORDER BY attempts DESC LIMIT 1) a
         ON true
       WHERE c.status = 'GAPS_FOUND'
         AND CASE WHEN a.attempts IS NULL THEN c.finished_at BETWEEN now() - interval '1 day' AND now() - make_interval(secs => $2)
                  ELSE NOT a.delivered AND a.attempts < $1 END
       ORDER BY c.started_at LIMIT 20`,
      [ALERT_ATTEMPTS, FIRST_TRY_GRACE_MS / 1000],
    );
    const resent: ResentAlert[] = [];
    for (const row of pending) {
      const check = {
        id: row.id,
        correlationId: row.correlation_id,
        gapCount: row.gap_count,
        currencyTotals: storedCurrencyTotals(row.currency_totals),
        gaps: storedAccountGaps(row.gaps),
      };
      resent.push({ id: row.id, status: row.status, alertSent: await this.alert(check, row.attempts + 1) });
    }
    return resent;
  }

  async recent(limit: number): Promise<Record<string, unknown>[]> {
    const rows = await this.db.query<{ currencyTotals: StoredCurrencyTotal[]; gaps: StoredAccountGap[] } & Record<string, unknown>>(
      `SELECT c.id, c.correlation_id AS "correlationId", c.trigger, c.started_at AS "startedAt", c.finished_at AS "finishedAt",
              c.accounts_checked AS "accountsChecked", c.gap_count AS "gapCount", c.account_gap_count AS "accountGapCount",
              jsonb_array_length(c.gaps) AS "gapsListed", c.status, c.currency_totals AS "currencyTotals", c.gaps,
              c.requested_by AS "requestedBy", c.requested_by_roles AS "requestedByRoles", c.caller, c.request_id AS "requestId",
              CASE WHEN a.id IS NULL THEN NULL
                   ELSE jsonb_build_object('attempts', a.attempts, 'delivered', a.delivered, 'lastError', a.last_error) END AS alert,
              CASE WHEN v.id IS NULL THEN NULL
                   ELSE jsonb_build_object('verificationId', v.id, 'status', v.status, 'brokenAccounts', v.broken_accounts,
                          'firstBreak', v.first_break, 'anchorStatus', v.anchor ->> 'status') END AS "ledgerChain"
       FROM ledger.balance_integrity_checks c
       LEFT JOIN LATERAL (SELECT * FROM ledger.balance_integrity_alerts WHERE check_id = c.id ORDER BY attempts DESC LIMIT 1) a ON true
       LEFT JOIN ledger.chain_verifications v ON v.integrity_check_id = c.id
       ORDER BY c.started_at DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ ...row, currencyTotals: storedCurrencyTotals(row.currencyTotals), gaps: storedAccountGaps(row.gaps) }));
  }
}
