import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type RawQueryable, queryRows } from '@mm/platform';
import type { RuleCode, RuleHit } from '../rules/monitoring-rule';
import { CaseStore } from './case.store';

/** The most operations an alert names (a fan-in over a day can gather hundreds; the first ones tell the story). */
const MAX_OPERATIONS = 200;

export interface RaisedAlert {
  alertId: string;
  caseId: string;
  caseOpened: boolean;
}

/**
 * Turns a rule's hit into an alert in the person's open case, in the feed's transaction (which
 * holds the person's advisory lock, so two batches never open two cases or two alerts at once).
 *
 * Deduplication: an alert of the same rule, subject, currency and scope whose window reaches into
 * this hit's window already covers it, so none is opened (at most one alert per rule and subject
 * per window length); the unique key on the window's end makes a re-run of the same operation a
 * no-op even without that check.
 */
@Injectable()
export class AlertWriter {
  constructor(private readonly store: CaseStore) {}

  async raise(tx: RawQueryable, rule: RuleCode, hit: RuleHit, configVersion: number, triggerEventId: string): Promise<RaisedAlert | null> {
    const covered = await queryRows<{ id: string }>(
      tx,
      `SELECT id FROM orchestrator.monitoring_alerts
        WHERE rule = $1 AND subject_user_id = $2 AND currency = $3 AND scope = $4 AND window_end > $5 LIMIT 1`,
      [rule, hit.subject.userId, hit.currency, hit.scope, new Date(hit.windowStart).toISOString()],
    );
    if (covered.length > 0) return null;

    const { caseId, opened } = await this.openCase(tx, hit);
    const alertId = randomUUID();
    const operations = hit.operations.slice(0, MAX_OPERATIONS);
    const inserted = await queryRows<{ id: string }>(
      tx,
      `INSERT INTO orchestrator.monitoring_alerts
         (id, rule, subject_user_id, subject_kind, currency, scope, window_start, window_end, config_version, reason, figures,
          transaction_ids, trigger_event_id, case_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::uuid[], $13, $14)
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
        [...new Set(operations.map((op) => op.transactionId))],
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
