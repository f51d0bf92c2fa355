import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsService, type RawQueryable, queryRows } from '@mm/platform';
import { ConfigVersionsService } from '../../config-api/config-versions.service';
import { AlertWriter } from '../cases/alert-writer';
import type { OperationRow } from '../cases/case.types';
import type { MonitoringDocument } from '../rules/monitoring-document';
import { type MonitoredOperation, type MonitoringRule, RULE_CODES, type RuleCode } from '../rules/monitoring-rule';
import { RuleSet } from '../rules/rule-set';
import { AccountOwners, type AccountOwner } from './account-owners';
import { FeedHistory, type HistorySlice, type Judgement, byTime, readSlices, toOperation } from './feed-history';
import { type FeedEvent, type RejectReason, parseFeedEvent } from './ledger-event.parse';

export interface IngestResult {
  /** operations stored now (the others were already there, or not operations the feed keeps) */
  stored: number;
  duplicates: number;
  /** events refused (kept in `monitoring_feed_rejects`) */
  invalid: number;
  alerts: number;
  /** judgements that threw (one `monitoring_rule_failures` row per rule and batch counts them) */
  ruleFailures: number;
  /** stored operations judged: the new ones and their persons' later ones */
  judged: number;
  /** judgements made per rule (an operation that cannot make a rule fire is no judgement of it) */
  evaluations: Record<RuleCode, number>;
  /** stored operations read to judge the batch (the operations to judge and the windows the rules asked for) */
  rowsRead: number;
}

/** A person's advisory lock key (64 bits of a hash), so that two batches touching one person run in turn. */
function lockKey(userId: string): string {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`monitoring:${userId}`).digest('hex').slice(0, 16)}`)).toString();
}

/** A refused event as kept: whole when small, else its first 4 KiB as text. */
function keptEvent(raw: unknown): { json: string; fingerprint: string } {
  const text = JSON.stringify(raw) ?? 'null';
  const fingerprint = createHash('sha256').update(text).digest('hex');
  return { json: text.length <= 4096 ? text : JSON.stringify({ truncated: true, head: text.slice(0, 4096) }), fingerprint };
}

interface RuleFailure {
  occurrences: number;
  eventId: string;
  error: unknown;
}

/**
 * The monitoring feed: stores each completed operation once (idempotent on the ledger's event id)
 * and judges it with the rules in force, in one transaction per batch (docs/monitoring.md#the-feed).
 *
 * Batches may run at once (replicas) and arrive out of order (a retried job), so the feed takes the
 * advisory locks of every person of the batch before storing anything, and after storing re-judges
 * each person's stored operations from the earliest new one onwards (as far as the rules look): an
 * operation stored late is seen by every judgement it could change. Alerts are deduplicated
 * (AlertWriter), so judging an operation again raises nothing twice.
 *
 * A rule that throws is caught and counted (`monitoring_rule_failures_total{rule}`), and recorded
 * once per rule and batch in `monitoring_rule_failures` with its number of occurrences; the other
 * rules still run and the batch goes on. Refused events are kept in `monitoring_feed_rejects`.
 * Nothing here is on the payment's path: the ledger's relay hands the events over after the money moved.
 */
@Injectable()
export class MonitoringFeed {
  private readonly logger = new Logger(MonitoringFeed.name);
  private readonly failures: Counter<'rule'>;
  private readonly alertsRaised: Counter<'rule'>;
  private readonly evaluations: Counter<'rule'>;
  private readonly operations: Counter;
  private readonly rejected: Counter<'reason'>;

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
    this.evaluations = metrics.counter('monitoring_rule_evaluations_total', 'Judgements made by each monitoring rule', ['rule']);
    this.operations = metrics.counter('monitoring_operations_total', 'Completed operations stored by the monitoring feed');
    this.rejected = metrics.counter('monitoring_events_rejected_total', 'Events the monitoring feed refused', ['reason']);
  }

  /** `batchId`: the queue job the events came in (kept with refused events and rule failures). */
  async ingest(events: readonly unknown[], batchId: string | null = null): Promise<IngestResult> {
    const rejects: Array<{ raw: unknown; reason: RejectReason }> = [];
    const byId = new Map<string, FeedEvent>();
    events.forEach((raw) => {
      const parsed = parseFeedEvent(raw);
      if ('reject' in parsed) rejects.push({ raw, reason: parsed.reject });
      else byId.set(parsed.event.eventId, parsed.event);
    });
    // ascending ids: two batches sharing events insert them in one order (no deadlock on the key)
    const valid = [...byId.values()].sort((a, b) => a.eventId.localeCompare(b.eventId));
    const evaluations = Object.fromEntries(RULE_CODES.map((code) => [code, 0])) as Record<RuleCode, number>;
    const result: IngestResult = {
      stored: 0,
      duplicates: 0,
      invalid: rejects.length,
      alerts: 0,
      ruleFailures: 0,
      judged: 0,
      evaluations,
      rowsRead: 0,
    };
    if (valid.length === 0 && rejects.length === 0) return result;

    const owners = await this.owners.resolve(valid.flatMap((e) => [e.sourceAccountId, e.destinationAccountId]));
    const config = await this.versions.active('monitoring');
    await this.db.transaction(async (tx) => {
      if (rejects.length > 0) await this.keepRejects(tx, rejects, batchId);
      if (valid.length === 0) return;

      // Locks first: a batch touching the same persons waits here, and sees this one's operations once it goes on.
      const persons = [...new Set([...owners.values()].map((o) => o.userId))];
      await tx.query(`SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k) AS keys`, [
        persons.map(lockKey),
      ]);
      const stored = (await this.store(tx, valid, owners)).map(toOperation);
      result.stored = stored.length;
      result.duplicates = valid.length - stored.length;
      if (stored.length === 0) return;

      const registered = new Map<string, number | null>([...owners.values()].map((o) => [o.userId, o.registeredAt]));
      await this.judge(tx, stored, registered, config.document, config.version, batchId, result);
    });
    this.operations.inc(result.stored);
    for (const reject of rejects) this.rejected.inc({ reason: reject.reason });
    if (rejects.length > 0) {
      this.logger.error({ msg: 'monitoring feed refused events', alert: 'monitoring.event_invalid', invalid: rejects.length, batchId });
    }
    return result;
  }

  /**
   * Judges the persons of the new operations again from each one's earliest new operation, up to
   * its latest new one plus the longest window a rule reads (nothing later can have read them).
   * Only judgements about those persons are made: the others' were not touched.
   */
  private async judge(
    tx: RawQueryable,
    stored: MonitoredOperation[],
    registered: Map<string, number | null>,
    config: MonitoringDocument,
    version: number,
    batchId: string | null,
    result: IngestResult,
  ): Promise<void> {
    const reach = this.rules.lookbackMs(config);
    const ranges = new Map<string, HistorySlice>();
    for (const op of stored) {
      for (const party of [op.source, op.destination]) {
        if (!party) continue;
        const range = ranges.get(party.userId);
        if (!range) ranges.set(party.userId, { userId: party.userId, side: 'either', counterpart: null, from: op.at, to: op.at + reach });
        else {
          range.from = Math.min(range.from, op.at);
          range.to = Math.max(range.to, op.at + reach);
        }
      }
    }
    const inRange = (userId: string | undefined, at: number) => {
      const range = userId ? ranges.get(userId) : undefined;
      return !!range && at >= range.from && at <= range.to;
    };
    const toJudge = (await readSlices(tx, [...ranges.values()])).sort(byTime);
    result.judged = toJudge.length;

    const failed = new Map<RuleCode, RuleFailure>();
    const fail = (code: RuleCode, op: MonitoredOperation, error: unknown) => {
      const seen = failed.get(code);
      if (seen) seen.occurrences += 1;
      else failed.set(code, { occurrences: 1, eventId: op.eventId, error });
      this.failures.inc({ rule: code });
    };

    const judgements: Array<Judgement & { rule: MonitoringRule }> = [];
    for (const op of toJudge) {
      for (const rule of this.rules.rules) {
        try {
          for (const candidate of rule.candidates(op, config)) {
            if (inRange(candidate.subject.userId, op.at)) judgements.push({ trigger: op, candidate, rule });
          }
        } catch (error) {
          fail(rule.code, op, error);
        }
      }
    }

    const history = await FeedHistory.load(tx, judgements, registered);
    result.rowsRead = toJudge.length + history.rowsRead;
    for (const judgement of judgements) {
      const { rule } = judgement;
      result.evaluations[rule.code] += 1;
      this.evaluations.inc({ rule: rule.code });
      let hit;
      try {
        hit = rule.evaluate(history.contextFor(judgement, config));
      } catch (error) {
        fail(rule.code, judgement.trigger, error);
        continue;
      }
      if (!hit) continue;
      const raised = await this.alerts.raise(tx, rule.code, hit, version, judgement.trigger.eventId);
      if (!raised) continue;
      result.alerts += 1;
      this.alertsRaised.inc({ rule: rule.code });
      this.logger.log({ msg: 'monitoring alert raised', rule: rule.code, alertId: raised.alertId, caseId: raised.caseId });
    }

    for (const [code, failure] of failed) {
      result.ruleFailures += failure.occurrences;
      const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
      this.logger.error({
        msg: 'monitoring rule failed',
        alert: 'monitoring.rule_failed',
        rule: code,
        occurrences: failure.occurrences,
        eventId: failure.eventId,
        batchId,
        err: failure.error,
      });
      await tx.query(
        `INSERT INTO orchestrator.monitoring_rule_failures (rule, event_id, config_version, error, occurrences, batch_id)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [code, failure.eventId, version, (message || 'error without a message').slice(0, 1000), failure.occurrences, batchId],
      );
    }
  }

  private async keepRejects(
    tx: RawQueryable,
    rejects: Array<{ raw: unknown; reason: RejectReason }>,
    batchId: string | null,
  ): Promise<void> {
    const kept = rejects.map((r) => ({ ...keptEvent(r.raw), reason: r.reason, eventId: eventIdOf(r.raw) }));
    await tx.query(
      `INSERT INTO orchestrator.monitoring_feed_rejects (fingerprint, reason, event_id, batch_id, event)
       SELECT f, r, e, $4, j::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $5::text[]) AS t(f, r, e, j)
       ON CONFLICT (fingerprint) DO NOTHING`,
      [kept.map((k) => k.fingerprint), kept.map((k) => k.reason), kept.map((k) => k.eventId), batchId, kept.map((k) => k.json)],
    );
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
}

/** The event id a refused event claims, when it claims a short string one. */
function eventIdOf(raw: unknown): string | null {
  const id = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).eventId : undefined;
  return typeof id === 'string' && id.length <= 64 ? id : null;
}
