import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsService, type RawQueryable, queryRows } from '@mm/platform';
import { ConfigVersionsService } from '../../config-api/config-versions.service';
import { AlertWriter } from '../cases/alert-writer';
import type { OperationRow } from '../cases/case.types';
import type { MonitoringDocument } from '../rules/monitoring-document';
import type { MonitoredOperation, RuleHit } from '../rules/monitoring-rule';
import { RuleSet } from '../rules/rule-set';
import { AccountOwners, type AccountOwner } from './account-owners';
import { FeedHistory, toOperation } from './feed-history';
import { type FeedEvent, parseFeedEvent } from './ledger-event.parse';

export interface IngestResult {
  /** operations stored now (the others were already there, or not operations the feed keeps) */
  stored: number;
  duplicates: number;
  invalid: number;
  alerts: number;
  ruleFailures: number;
}

/** A person's advisory lock key (64 bits of a hash), so that two batches judge one person in turn. */
function lockKey(userId: string): string {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`monitoring:${userId}`).digest('hex').slice(0, 16)}`)).toString();
}

/**
 * The monitoring feed: stores each completed operation once (idempotent on the ledger's event id)
 * and judges every newly stored one with the rules in force, in one transaction per batch. Only new
 * operations are judged, so a batch delivered twice raises nothing twice; a batch that fails
 * (database gone) is rolled back whole and retried by the queue.
 *
 * A rule that throws is caught, counted (`monitoring_rule_failures_total{rule}`), logged with its
 * code and recorded in `monitoring_rule_failures`; the other rules still run and the batch goes
 * on. Nothing here is on the payment's path: the ledger's relay hands the events over after the
 * money moved (docs/monitoring.md#the-feed).
 */
@Injectable()
export class MonitoringFeed {
  private readonly logger = new Logger(MonitoringFeed.name);
  private readonly failures: Counter<'rule'>;
  private readonly alertsRaised: Counter<'rule'>;
  private readonly operations: Counter;

  constructor(
    private readonly db: DataSource,
    private readonly owners: AccountOwners,
    private readonly versions: ConfigVersionsService,
    private readonly rules: RuleSet,
    private readonly alerts: AlertWriter,
    metrics: MetricsService,
  ) {
    this.failures = metrics.counter('monitoring_rule_failures_total', 'Monitoring rules that threw while judging an operation', ['rule']);
    this.alertsRaised = metrics.counter('monitoring_alerts_total', 'Monitoring alerts raised', ['rule']);
    this.operations = metrics.counter('monitoring_operations_total', 'Completed operations stored by the monitoring feed');
  }

  async ingest(events: readonly unknown[]): Promise<IngestResult> {
    const parsed = events.map(parseFeedEvent);
    const valid = [...new Map(parsed.filter((e): e is FeedEvent => e !== null).map((e) => [e.eventId, e])).values()];
    const invalid = parsed.length - parsed.filter(Boolean).length;
    if (invalid > 0) this.logger.error({ msg: 'monitoring feed ignored malformed events', alert: 'monitoring.event_invalid', invalid });
    const result: IngestResult = { stored: 0, duplicates: 0, invalid, alerts: 0, ruleFailures: 0 };
    if (valid.length === 0) return result;

    const owners = await this.owners.resolve(valid.flatMap((e) => [e.sourceAccountId, e.destinationAccountId]));
    const config = await this.versions.active('monitoring');
    await this.db.transaction(async (tx) => {
      const stored = (await this.store(tx, valid, owners))
        .map(toOperation)
        .sort((a, b) => a.at - b.at || a.eventId.localeCompare(b.eventId));
      result.stored = stored.length;
      result.duplicates = valid.length - stored.length;
      if (stored.length === 0) return;

      const persons = [...new Set(stored.flatMap((op) => [op.source?.userId, op.destination?.userId]).filter((id): id is string => !!id))];
      await tx.query(`SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k) AS keys`, [
        persons.map(lockKey),
      ]);
      const registered = new Map<string, number | null>([...owners.values()].map((o) => [o.userId, o.registeredAt]));
      const history = await FeedHistory.load(
        tx,
        persons,
        { from: stored[0].at - this.rules.lookbackMs(config.document), to: stored[stored.length - 1].at },
        registered,
      );
      for (const op of stored) {
        const outcome = await this.judge(tx, op, history, config.document, config.version);
        result.alerts += outcome.alerts;
        result.ruleFailures += outcome.failures;
      }
    });
    this.operations.inc(result.stored);
    return result;
  }

  private async store(tx: RawQueryable, events: FeedEvent[], owners: Map<string, AccountOwner>): Promise<OperationRow[]> {
    const col = <T>(pick: (e: FeedEvent) => T) => events.map(pick);
    return queryRows<OperationRow>(
      tx,
      `INSERT INTO orchestrator.monitored_operations
         (event_id, transaction_id, reference, intent_type, amount, fee, currency, source_account_id, destination_account_id,
          source_user_id, source_kind, destination_user_id, destination_kind, occurred_at)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::uuid[], $9::uuid[],
                            $10::uuid[], $11::text[], $12::uuid[], $13::text[], $14::timestamptz[])
       ON CONFLICT (event_id) DO NOTHING
       RETURNING event_id, transaction_id, reference, intent_type, amount, fee, currency, source_account_id, destination_account_id,
                 source_user_id, source_kind, destination_user_id, destination_kind, occurred_at`,
      [
        col((e) => e.eventId),
        col((e) => e.transactionId),
        col((e) => e.referenceId),
        col((e) => e.intentType),
        col((e) => e.amount),
        col((e) => e.fee),
        col((e) => e.currency),
        col((e) => e.sourceAccountId),
        col((e) => e.destinationAccountId),
        col((e) => owners.get(e.sourceAccountId)?.userId ?? null),
        col((e) => owners.get(e.sourceAccountId)?.kind ?? null),
        col((e) => owners.get(e.destinationAccountId)?.userId ?? null),
        col((e) => owners.get(e.destinationAccountId)?.kind ?? null),
        col((e) => e.occurredAt),
      ],
    );
  }

  /** Every rule on one operation; a rule that throws is recorded and the next one runs. */
  private async judge(
    tx: RawQueryable,
    op: MonitoredOperation,
    history: FeedHistory,
    config: MonitoringDocument,
    version: number,
  ): Promise<{ alerts: number; failures: number }> {
    const context = history.contextFor(op, config);
    let alerts = 0;
    let failures = 0;
    for (const rule of this.rules.rules) {
      let hits: RuleHit[];
      try {
        hits = rule.evaluate(context);
      } catch (error) {
        failures += 1;
        const message = error instanceof Error ? error.message : String(error);
        this.failures.inc({ rule: rule.code });
        this.logger.error({
          msg: 'monitoring rule failed',
          alert: 'monitoring.rule_failed',
          rule: rule.code,
          eventId: op.eventId,
          err: error,
        });
        await tx.query(
          `INSERT INTO orchestrator.monitoring_rule_failures (rule, event_id, config_version, error) VALUES ($1, $2, $3, $4)`,
          [rule.code, op.eventId, version, (message || 'error without a message').slice(0, 1000)],
        );
        continue;
      }
      for (const hit of hits) {
        const raised = await this.alerts.raise(tx, rule.code, hit, version, op.eventId);
        if (!raised) continue;
        alerts += 1;
        this.alertsRaised.inc({ rule: rule.code });
        this.logger.log({ msg: 'monitoring alert raised', rule: rule.code, alertId: raised.alertId, caseId: raised.caseId });
      }
    }
    return { alerts, failures };
  }
}
