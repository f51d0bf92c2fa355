import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { MetricsService, currentContext } from '@mm/platform';
import type { AuditRequester } from '../audit/auditors';
import { LedgerDb } from '../db/ledger-db.service';
import { safeSum, toMoney } from '../db/money';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { ComplianceChannel } from './compliance-channel.service';

export interface AccountGap {
  accountId: string;
  currency: string;
  accountType: string;
  stored: number;
  recomputed: number;
  gap: number;
  available: number;
  frozen: number;
}

export interface CurrencyTotal {
  currency: string;
  /** Σ stored balances (0 when every movement is double entry) */
  storedTotal: number;
  /** Σ credits − Σ debits over every entry (0 when every transaction balances) */
  ledgerTotal: number;
  gap: number;
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
}

/** Accounts listed in a check's `gaps` (the count is always complete). */
export const MAX_GAPS_LISTED = 1_000;
/** Tries of the compliance alert, the first included, and the wait before the second (doubled after). */
export const ALERT_ATTEMPTS = 3;
const ALERT_RETRY_BASE_MS = 250;

/**
 * The nightly integrity check (spec 2): every account's stored balance against its entries and its
 * available/frozen split, plus the global sum per currency, in one read-only snapshot. It never
 * changes ledger data; it only appends its own row to balance_integrity_checks (append-only, kept
 * forever, naming who asked: `scheduler` or the operator), sets `ledger_integrity_gap_count` to the
 * full count, and on any gap (alert threshold zero) logs at ERROR with the correlation id and
 * alerts the compliance channel (retried, outcome appended to balance_integrity_alerts).
 */
@Injectable()
export class IntegrityCheckService {
  private readonly logger = new Logger(IntegrityCheckService.name);
  private readonly gapGauge: Gauge;

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    private readonly channel: ComplianceChannel,
    metrics: MetricsService,
  ) {
    this.gapGauge = metrics.gauge('ledger_integrity_gap_count', 'Gaps found by the last ledger integrity check (accounts + currencies)');
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

    const accountGaps: AccountGap[] = gaps.map((r) => ({
      accountId: r.id,
      currency: r.currency.trim(),
      accountType: r.account_type,
      stored: toMoney(r.balance),
      recomputed: toMoney(r.recomputed),
      gap: safeSum(toMoney(r.balance), -toMoney(r.recomputed)),
      available: toMoney(r.available_balance),
      frozen: toMoney(r.frozen_balance),
    }));
    const currencyTotals: CurrencyTotal[] = totals.map((t) => ({
      currency: t.currency,
      storedTotal: toMoney(t.stored),
      ledgerTotal: toMoney(t.ledger),
      gap: safeSum(toMoney(t.stored), -toMoney(t.ledger)),
    }));
    const accountGapCount = gaps.length > 0 ? Number(gaps[0].total) : 0;
    const gapCount = accountGapCount + currencyTotals.filter((t) => t.storedTotal !== 0 || t.ledgerTotal !== 0).length;
    const finishedAt = new Date();
    const id = randomUUID();
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
    };
    const who = { requestedBy, caller: requester?.caller, requestId: requester?.requestId };
    if (gapCount > 0) {
      this.logger.error(
        { correlationId, checkId: id, ...who, gapCount, accountGapCount, gaps: accountGaps.slice(0, 20), currencyTotals },
        'ledger integrity check found gaps',
      );
      result.alertSent = await this.alert(result);
    } else {
      this.logger.log({ correlationId, checkId: id, ...who, accountsChecked: accounts }, 'ledger integrity check OK');
    }
    return result;
  }

  /**
   * The compliance channel (JSON, 5 s timeout per try), tried up to ALERT_ATTEMPTS times with a
   * doubling wait; the outcome (tries, delivered, last error) is appended to
   * `balance_integrity_alerts`. A failed alert is logged and recorded, never thrown: the check
   * itself is already stored.
   */
  private async alert(result: IntegrityCheckResult): Promise<boolean> {
    const url = this.config.LEDGER_INTEGRITY_ALERT_URL;
    const message = {
      text: `Ledger integrity check ${result.id}: ${result.gapCount} gap(s) found`,
      checkId: result.id,
      correlationId: result.correlationId,
      gapCount: result.gapCount,
      currencyTotals: result.currencyTotals,
      gaps: result.gaps.slice(0, 50),
    };
    let attempts = 0;
    let delivered = false;
    let lastError: string | undefined = url ? undefined : 'LEDGER_INTEGRITY_ALERT_URL is not set';
    if (url) {
      for (attempts = 1; ; attempts++) {
        ({ delivered, error: lastError } = await this.channel.deliver(url, message, result.correlationId));
        if (delivered || attempts >= ALERT_ATTEMPTS) break;
        await new Promise((resolve) => setTimeout(resolve, ALERT_RETRY_BASE_MS * 2 ** (attempts - 1)));
      }
    }
    await this.db.query(`INSERT INTO ledger.balance_integrity_alerts (check_id, attempts, delivered, last_error) VALUES ($1, $2, $3, $4)`, [
      result.id,
      attempts,
      delivered,
      delivered ? null : (lastError ?? null),
    ]);
    if (!delivered) {
      this.logger.error(
        { correlationId: result.correlationId, checkId: result.id, attempts, lastError },
        'integrity alert not delivered to the compliance channel',
      );
    }
    return delivered;
  }

  async recent(limit: number): Promise<Record<string, unknown>[]> {
    return this.db.query(
      `SELECT c.id, c.correlation_id AS "correlationId", c.trigger, c.started_at AS "startedAt", c.finished_at AS "finishedAt",
              c.accounts_checked AS "accountsChecked", c.gap_count AS "gapCount", c.account_gap_count AS "accountGapCount",
              jsonb_array_length(c.gaps) AS "gapsListed", c.status, c.currency_totals AS "currencyTotals", c.gaps,
              c.requested_by AS "requestedBy", c.requested_by_roles AS "requestedByRoles", c.caller, c.request_id AS "requestId",
              CASE WHEN a.id IS NULL THEN NULL
                   ELSE jsonb_build_object('attempts', a.attempts, 'delivered', a.delivered, 'lastError', a.last_error) END AS alert
       FROM ledger.balance_integrity_checks c LEFT JOIN ledger.balance_integrity_alerts a ON a.check_id = c.id
       ORDER BY c.started_at DESC LIMIT $1`,
      [limit],
    );
  }
}
