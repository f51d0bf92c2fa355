import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { MetricsService, currentContext } from '@mm/platform';
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
  gapCount: number;
  status: 'OK' | 'GAPS_FOUND';
  currencyTotals: CurrencyTotal[];
  gaps: AccountGap[];
  alertSent: boolean;
}

const MAX_GAPS_STORED = 1_000;

/**
 * The nightly integrity check (spec 2): every account's stored balance against its entries and its
 * available/frozen split, plus the global sum per currency, in one read-only snapshot. It never
 * changes ledger data; it only appends its own row to balance_integrity_checks (kept forever),
 * sets `ledger_integrity_gap_count`, and on any gap (alert threshold zero) logs at ERROR with the
 * correlation id and alerts the compliance channel.
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

  async run(trigger: IntegrityCheckResult['trigger']): Promise<IntegrityCheckResult> {
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const startedAt = new Date();
    const { accounts, gaps, totals } = await this.db.withSession(async (s) => {
      await s.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      s.inTransaction = true;
      const rows = await s.query<Record<string, string>>(
        `WITH net AS (
           SELECT account_id, sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END) AS net FROM ledger.ledgers GROUP BY account_id)
         SELECT a.id, a.currency, a.account_type, a.balance::text, a.available_balance::text, a.frozen_balance::text,
                COALESCE(n.net, 0)::text AS recomputed
         FROM ledger.accounts a LEFT JOIN net n ON n.account_id = a.id
         WHERE a.balance <> COALESCE(n.net, 0) OR a.balance <> a.available_balance + a.frozen_balance
         ORDER BY a.id LIMIT ${MAX_GAPS_STORED}`,
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
    const gapCount = accountGaps.length + currencyTotals.filter((t) => t.storedTotal !== 0 || t.ledgerTotal !== 0).length;
    const finishedAt = new Date();
    const id = randomUUID();
    await this.db.query(
      `INSERT INTO ledger.balance_integrity_checks (id, correlation_id, trigger, started_at, finished_at, accounts_checked, gap_count, status, currency_totals, gaps)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb)`,
      [
        id,
        correlationId,
        trigger,
        startedAt,
        finishedAt,
        accounts,
        gapCount,
        gapCount > 0 ? 'GAPS_FOUND' : 'OK',
        JSON.stringify(currencyTotals),
        JSON.stringify(accountGaps),
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
      status: gapCount > 0 ? 'GAPS_FOUND' : 'OK',
      currencyTotals,
      gaps: accountGaps,
      alertSent: false,
    };
    if (gapCount > 0) {
      this.logger.error(
        { correlationId, checkId: id, gapCount, gaps: accountGaps.slice(0, 20), currencyTotals },
        'ledger integrity check found gaps',
      );
      result.alertSent = await this.alert(result);
    } else {
      this.logger.log({ correlationId, checkId: id, accountsChecked: accounts }, 'ledger integrity check OK');
    }
    return result;
  }

  /** The compliance channel (JSON, 5 s timeout). A failed alert is logged, never thrown. */
  private alert(result: IntegrityCheckResult): Promise<boolean> {
    return this.channel.send(
      this.config.LEDGER_INTEGRITY_ALERT_URL,
      {
        text: `Ledger integrity check ${result.id}: ${result.gapCount} gap(s) found`,
        checkId: result.id,
        correlationId: result.correlationId,
        gapCount: result.gapCount,
        currencyTotals: result.currencyTotals,
        gaps: result.gaps.slice(0, 50),
      },
      result.correlationId,
    );
  }

  async recent(limit: number): Promise<Record<string, unknown>[]> {
    return this.db.query(
      `SELECT id, correlation_id AS "correlationId", trigger, started_at AS "startedAt", finished_at AS "finishedAt",
              accounts_checked AS "accountsChecked", gap_count AS "gapCount", status, currency_totals AS "currencyTotals", gaps
       FROM ledger.balance_integrity_checks ORDER BY started_at DESC LIMIT $1`,
      [limit],
    );
  }
}
