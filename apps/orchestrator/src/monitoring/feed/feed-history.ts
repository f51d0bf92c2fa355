import { type RawQueryable, queryRows } from '@mm/platform';
import type { MonitoringDocument } from '../rules/monitoring-document';
import type { MonitoredOperation, RuleContext } from '../rules/monitoring-rule';
import type { OperationRow } from '../cases/case.types';

export function toOperation(row: OperationRow): MonitoredOperation {
  return {
    eventId: row.event_id,
    transactionId: row.transaction_id,
    reference: row.reference,
    type: row.intent_type,
    amount: Number(row.amount),
    currency: row.currency,
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    source: row.source_user_id && row.source_kind ? { userId: row.source_user_id, kind: row.source_kind } : null,
    destination: row.destination_user_id && row.destination_kind ? { userId: row.destination_user_id, kind: row.destination_kind } : null,
    at: new Date(row.occurred_at).getTime(),
  };
}

/**
 * What the rules read for one batch, loaded in three statements: every operation of the batch's
 * persons over the longest window the rules look back, each person's latest operation before that
 * range (dormancy), and when the feed's history begins.
 */
export class FeedHistory {
  private readonly byPerson = new Map<string, MonitoredOperation[]>();
  private readonly before = new Map<string, number>();
  private feedStart: number | null = null;

  private constructor(private readonly registered: Map<string, number | null>) {}

  static async load(
    db: RawQueryable,
    persons: string[],
    range: { from: number; to: number },
    registered: Map<string, number | null>,
  ): Promise<FeedHistory> {
    const history = new FeedHistory(registered);
    if (persons.length === 0) return history;
    const from = new Date(range.from).toISOString();
    // one connection (the feed's transaction): the three statements run one after the other
    const rows = await queryRows<OperationRow>(
      db,
      `SELECT event_id, transaction_id, reference, intent_type, amount, fee, currency, source_account_id, destination_account_id,
                source_user_id, source_kind, destination_user_id, destination_kind, occurred_at
           FROM orchestrator.monitored_operations
          WHERE (source_user_id = ANY($1::uuid[]) OR destination_user_id = ANY($1::uuid[])) AND occurred_at >= $2 AND occurred_at <= $3
          ORDER BY occurred_at, event_id`,
      [persons, from, new Date(range.to).toISOString()],
    );
    // each side has its own index: two lookups per person rather than one scan of an OR
    const last = await queryRows<{ user_id: string; at: Date | null }>(
      db,
      `SELECT p.user_id, GREATEST(
                  (SELECT max(o.occurred_at) FROM orchestrator.monitored_operations o WHERE o.source_user_id = p.user_id AND o.occurred_at < $2),
                  (SELECT max(o.occurred_at) FROM orchestrator.monitored_operations o WHERE o.destination_user_id = p.user_id AND o.occurred_at < $2)
                ) AS at
           FROM unnest($1::uuid[]) AS p(user_id)`,
      [persons, from],
    );
    const [start] = await queryRows<{ at: Date | null }>(db, `SELECT min(occurred_at) AS at FROM orchestrator.monitored_operations`);
    for (const row of rows) {
      const op = toOperation(row);
      for (const userId of new Set([op.source?.userId, op.destination?.userId])) {
        if (!userId) continue;
        const list = history.byPerson.get(userId) ?? [];
        list.push(op);
        history.byPerson.set(userId, list);
      }
    }
    for (const row of last) if (row.at) history.before.set(row.user_id, new Date(row.at).getTime());
    history.feedStart = start?.at ? new Date(start.at).getTime() : null;
    return history;
  }

  /** The context of one operation of the batch. */
  contextFor(trigger: MonitoredOperation, config: MonitoringDocument): RuleContext {
    return {
      trigger,
      config,
      feedStartedAt: this.feedStart,
      operationsOf: (userId, from) => (this.byPerson.get(userId) ?? []).filter((op) => op.at >= from && op.at <= trigger.at),
      lastActivityBefore: (userId) => {
        let last = this.before.get(userId) ?? null;
        for (const op of this.byPerson.get(userId) ?? []) {
          if (op.at < trigger.at && (last === null || op.at > last)) last = op.at;
        }
        return last;
      },
      registeredAt: (userId) => this.registered.get(userId) ?? null,
    };
  }
}
