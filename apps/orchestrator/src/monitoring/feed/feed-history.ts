import { type RawQueryable, queryRows } from '@mm/platform';
import type { MonitoringDocument } from '../rules/monitoring-document';
import type { Candidate, HistoryNeed, MonitoredOperation, RuleContext } from '../rules/monitoring-rule';
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

export const byTime = (a: MonitoredOperation, b: MonitoredOperation): number => a.at - b.at || a.eventId.localeCompare(b.eventId);

const COLUMNS = `o.event_id, o.transaction_id, o.reference, o.intent_type, o.amount, o.fee, o.currency, o.source_account_id,
  o.destination_account_id, o.source_user_id, o.source_kind, o.destination_user_id, o.destination_kind, o.occurred_at`;

/** A slice of one person's stored operations, by side (and other party) and time, both bounds included. */
export interface HistorySlice {
  userId: string;
  side: HistoryNeed['side'];
  counterpart: string | null;
  from: number;
  to: number;
}

/**
 * Reads slices of persons' operations in one statement: per slice, a range of the index of each
 * side it asks for (`monitored_operations_source_idx`, `_destination_idx`: person, time), so what is
 * read is bounded by the slices, never by how busy a person is outside them.
 */
export async function readSlices(db: RawQueryable, slices: HistorySlice[]): Promise<MonitoredOperation[]> {
  if (slices.length === 0) return [];
  const iso = (ms: number) => new Date(ms).toISOString();
  const rows = await queryRows<OperationRow>(
    db,
    `SELECT DISTINCT ON (o.event_id) ${COLUMNS}
       FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::timestamptz[]) AS r(user_id, side, counterpart, from_at, to_at)
      CROSS JOIN LATERAL (
        SELECT ${COLUMNS} FROM orchestrator.monitored_operations o
         WHERE r.side IN ('source', 'either') AND o.source_user_id = r.user_id AND o.occurred_at BETWEEN r.from_at AND r.to_at
           AND (r.counterpart IS NULL OR o.destination_user_id = r.counterpart)
        UNION ALL
        SELECT ${COLUMNS} FROM orchestrator.monitored_operations o
         WHERE r.side IN ('destination', 'either') AND o.destination_user_id = r.user_id AND o.occurred_at BETWEEN r.from_at AND r.to_at
           AND (r.counterpart IS NULL OR o.source_user_id = r.counterpart)
      ) AS o
      ORDER BY o.event_id`,
    [
      slices.map((s) => s.userId),
      slices.map((s) => s.side),
      slices.map((s) => s.counterpart),
      slices.map((s) => iso(s.from)),
      slices.map((s) => iso(s.to)),
    ],
  );
  return rows.map(toOperation);
}

/** A judgement to make: one rule's candidate on one operation. */
export interface Judgement {
  trigger: MonitoredOperation;
  candidate: Candidate;
}

/**
 * What the rules read for one batch, loaded from what their candidates asked (docs/monitoring.md#what-the-feed-loads):
 * each asked window of a subject's operations (merged per subject, side and other party), each
 * subject's last activity before a trigger, and when the feed's history begins. Operations are kept
 * per person in time order, so a judgement reads its window by binary search.
 */
export class FeedHistory {
  private readonly byPerson = new Map<string, MonitoredOperation[]>();
  private readonly lastBefore = new Map<string, number | null>();
  private feedStart: number | null = null;
  /** stored operations read (a measure of the batch's cost) */
  rowsRead = 0;

  private constructor(private readonly registered: Map<string, number | null>) {}

  static async load(db: RawQueryable, judgements: Judgement[], registered: Map<string, number | null>): Promise<FeedHistory> {
    const history = new FeedHistory(registered);
    const slices = new Map<string, HistorySlice>();
    const lastActivity = new Map<string, { userId: string; before: number }>();
    for (const { trigger, candidate } of judgements) {
      const userId = candidate.subject.userId;
      if (candidate.history) {
        const { side, from } = candidate.history;
        const counterpart = candidate.history.counterpart ?? null;
        const key = `${userId}|${side}|${counterpart ?? ''}`;
        const slice = slices.get(key);
        if (!slice) slices.set(key, { userId, side, counterpart, from, to: trigger.at });
        else {
          slice.from = Math.min(slice.from, from);
          slice.to = Math.max(slice.to, trigger.at);
        }
      }
      if (candidate.lastActivity) lastActivity.set(lastKey(userId, trigger.at), { userId, before: trigger.at });
    }

    // one connection (the feed's transaction): the statements run one after the other
    const ops = await readSlices(db, [...slices.values()]);
    history.rowsRead = ops.length;
    for (const op of ops) {
      for (const userId of new Set([op.source?.userId, op.destination?.userId])) {
        if (!userId) continue;
        const list = history.byPerson.get(userId) ?? [];
        list.push(op);
        history.byPerson.set(userId, list);
      }
    }
    for (const list of history.byPerson.values()) list.sort(byTime);

    if (lastActivity.size > 0) {
      const asked = [...lastActivity.values()];
      // each side has its own index: two backward lookups per person and time rather than one scan of an OR
      const rows = await queryRows<{ at: Date | null }>(
        db,
        `SELECT GREATEST(
                  (SELECT max(o.occurred_at) FROM orchestrator.monitored_operations o WHERE o.source_user_id = r.user_id AND o.occurred_at < r.before_at),
                  (SELECT max(o.occurred_at) FROM orchestrator.monitored_operations o WHERE o.destination_user_id = r.user_id AND o.occurred_at < r.before_at)
                ) AS at
           FROM unnest($1::uuid[], $2::timestamptz[]) WITH ORDINALITY AS r(user_id, before_at, n)
          ORDER BY r.n`,
        [asked.map((a) => a.userId), asked.map((a) => new Date(a.before).toISOString())],
      );
      asked.forEach((a, i) => history.lastBefore.set(lastKey(a.userId, a.before), rows[i]?.at ? new Date(rows[i].at!).getTime() : null));
      const [start] = await queryRows<{ at: Date | null }>(db, `SELECT min(occurred_at) AS at FROM orchestrator.monitored_operations`);
      history.feedStart = start?.at ? new Date(start.at).getTime() : null;
    }
    return history;
  }

  /** The context of one judgement: the subject's operations the candidate asked for, and nothing earlier. */
  contextFor({ trigger, candidate }: Judgement, config: MonitoringDocument): RuleContext {
    const subject = candidate.subject;
    const list = this.byPerson.get(subject.userId) ?? [];
    return {
      trigger,
      subject,
      config,
      feedStartedAt: this.feedStart,
      history: (from) => {
        if (!candidate.history || from < candidate.history.from) {
          throw new Error(`the rule read ${subject.userId}'s operations from ${new Date(from).toISOString()}, earlier than it asked`);
        }
        return list.slice(firstAtOrAfter(list, from), firstAtOrAfter(list, trigger.at + 1));
      },
      lastActivityBefore: () => {
        const key = lastKey(subject.userId, trigger.at);
        if (!candidate.lastActivity || !this.lastBefore.has(key)) throw new Error('the rule read a last activity it did not ask for');
        return this.lastBefore.get(key) ?? null;
      },
      registeredAt: () => this.registered.get(subject.userId) ?? null,
    };
  }
}

const lastKey = (userId: string, at: number) => `${userId}@${at}`;

/** The index of the first operation at `at` or later in a time-ordered list. */
function firstAtOrAfter(list: MonitoredOperation[], at: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
