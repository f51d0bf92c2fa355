import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type RawQueryable, queryRows } from '@mm/platform';
import type { RuleCode, RuleHit } from '../rules/monitoring-rule';
import { CaseStore } from './case.store';

/**
 * The most transactions an alert names (a fan-in over a day can gather hundreds; the first ones tell
 * the story). Past it the alert keeps the first ones and the trigger, and says it was cut.
 */
export const MAX_ALERT_OPERATIONS = 200;

export interface RaisedAlert {
  alertId: string;
  caseId: string;
  caseOpened: boolean;
}

/**
 * Turns a rule's hit into an alert in the person's open case, in the feed's transaction (which
 * holds the person's advisory lock, so two batches never open two cases or two alerts at once).
 *
 * Deduplication (docs/monitoring.md#alerts): an alert of the same rule, subject, currency and scope
 * whose window reaches into this hit's window already covers it, so none is opened (at most one
 * alert per rule and subject per window length), unless that alert's case was closed before the
 * hit's trigger happened: the officer's decision could not weigh it. (A decision always comes after
 * its alert's window, so "closed before the new window starts" would never apply.) The same hit
 * again (same window end: the feed re-judges operations after one stored late) is never a new
 * alert, whatever became of its case; that is checked before a case is opened, so a re-judged hit
 * leaves no trace.
 */
@Injectable()
export class AlertWriter {
  constructor(private readonly store: CaseStore) {}

  async raise(tx: RawQueryable, rule: RuleCode, hit: RuleHit, configVersion: number, triggerEventId: string): Promise<RaisedAlert | null> {
    const covered = await queryRows<{ id: string }>(
      tx,
      `SELECT a.id FROM orchestrator.monitoring_alerts a JOIN orchestrator.monitoring_cases c ON c.id = a.case_id
        WHERE a.rule = $1 AND a.subject_user_id = $2 AND a.currency = $3 AND a.scope = $4
          AND (a.window_end = $6 OR (a.window_end > $5 AND (c.status <> 'CLOSED' OR c.decided_at >= $6)))
        LIMIT 1`,
      [rule, hit.subject.userId, hit.currency, hit.scope, new Date(hit.windowStart).toISOString(), new Date(hit.windowEnd).toISOString()],
    );
    if (covered.length > 0) return null;

    const { caseId, opened } = await this.openCase(tx, hit);
    const alertId = randomUUID();
    const named = namedTransactions(hit, triggerEventId);
    const inserted = await queryRows<{ id: string }>(
      tx,
      `INSERT INTO orchestrator.monitoring_alerts
         (id, rule, subject_user_id, subject_kind, currency, scope, window_start, window_end, config_version, reason, figures,
          transaction_ids, operations_total, truncated, trigger_event_id, case_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::uuid[], $13, $14, $15, $16)
       ON CONFLICT (rule, subject_user_id, currency, scope, window_end) DO NOTHING
       RETURNING id`,
      [
        alertId,
        rule,
        hit.subject.userId,
        hit.subject.kind,
        hit.currency,
        hit.scope,
        new Date(hit.windowStart).toISOString(),
        new Date(hit.windowEnd).toISOString(),
        configVersion,
        hit.reason.slice(0, 1000),
        JSON.stringify(hit.figures),
        named.ids,
        named.total,
        named.ids.length < named.total,
        triggerEventId,
        caseId,
      ],
    );
    if (inserted.length === 0) return null;
    await this.store.event(tx, caseId, 'ALERT_ADDED', null, { alertId, rule, reason: hit.reason.slice(0, 1000) });
    return { alertId, caseId, caseOpened: opened };
  }

  /** The person's case that is not closed, or a new one. */
  private async openCase(tx: RawQueryable, hit: RuleHit): Promise<{ caseId: string; opened: boolean }> {
    const [open] = await queryRows<{ id: string }>(
      tx,
      `UPDATE orchestrator.monitoring_cases SET last_alert_at = now() WHERE subject_user_id = $1 AND status <> 'CLOSED' RETURNING id`,
      [hit.subject.userId],
    );
    if (open) return { caseId: open.id, opened: false };
    const caseId = randomUUID();
    await tx.query(
      `INSERT INTO orchestrator.monitoring_cases (id, subject_user_id, subject_kind, status, first_alert_at, last_alert_at)
       VALUES ($1, $2, $3, 'OPEN', now(), now())`,
      [caseId, hit.subject.userId, hit.subject.kind],
    );
    await this.store.event(tx, caseId, 'OPENED', null, { subjectUserId: hit.subject.userId, subjectKind: hit.subject.kind });
    return { caseId, opened: true };
  }
}

/**
 * The transactions an alert names: all of the hit's, or past MAX_ALERT_OPERATIONS the first ones
 * and the trigger's (the operation that completed the pattern is never the one left out).
 */
export function namedTransactions(hit: RuleHit, triggerEventId: string): { ids: string[]; total: number } {
  const all = [...new Set(hit.operations.map((op) => op.transactionId))];
  if (all.length <= MAX_ALERT_OPERATIONS) return { ids: all, total: all.length };
  const trigger = hit.operations.find((op) => op.eventId === triggerEventId)?.transactionId;
  const first = all.slice(0, MAX_ALERT_OPERATIONS);
  if (trigger && !first.includes(trigger)) first[MAX_ALERT_OPERATIONS - 1] = trigger;
  return { ids: first, total: all.length };
}
