import type { DbSession } from '../db/db-session';
import { CHAIN_ENTRY_COLUMNS, type ChainEntryRow } from './chain-link';
import { untraceableAmong, untraceableBreak } from './chain-sources';
import { AccountWalk, type ChainBreak, type ChainHead } from './chain-walk';

/** Rows per FETCH of the segments' cursor. */
const FETCH_ROWS = 5_000;

/**
 * How far before the previous anchor an entry it did not see may be dated. An entry's time is set
 * by its transaction before it commits (a confirm's completion time, a correction's start), so an
 * entry committed after the previous anchor's snapshot can bear an earlier time: by the length of a
 * money transaction (seconds: lock waits of 3 s, retries of 2.1 s) and the clock skew between
 * replicas. A minute covers both; an entry older still only costs a second read of its account.
 */
export const SEGMENT_TIME_MARGIN_MS = 60_000;

/** The part of one account's chain written since an anchor: from the anchored head to the head its row holds now. */
export interface ChainSegment {
  accountId: string;
  from: ChainHead;
  head: ChainHead;
}

/**
 * Recomputes the links of each segment, in the caller's snapshot, and answers the breaks (one per
 * broken account, in account order). Entries are looked up by account and time through
 * `IDX_ledgers_account_booked`, from `since` (the previous anchor's time less the margin), so only
 * the entries written since are read; an account whose segment does not add up is read again
 * without the time bound before it is called broken. Every transaction of the entries read must have
 * a source (chain-sources.ts): an entry of one that has none is UNTRACEABLE, after any link break.
 */
export async function checkSegments(s: DbSession, segments: ChainSegment[], since: Date | null): Promise<ChainBreak[]> {
  // the first entry read of each transaction: each must have a source, checked once the links hold
  const written = new Map<string, ChainEntryRow>();
  let breaks: Map<string, ChainBreak>;
  if (!since) {
    breaks = await walkSegments(s, segments, null, written);
  } else {
    breaks = await walkSegments(s, segments, new Date(since.getTime() - SEGMENT_TIME_MARGIN_MS), written);
    if (breaks.size > 0) {
      const again = segments.filter((g) => breaks.has(g.accountId));
      breaks = await walkSegments(s, again, null, written);
    }
  }
  for (const id of await untraceableAmong(s, [...written.keys()])) {
    const e = written.get(id)!;
    if (!breaks.has(e.account_id)) breaks.set(e.account_id, untraceableBreak(e));
  }
  return [...breaks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, b]) => b);
}

async function walkSegments(
  s: DbSession,
  segments: ChainSegment[],
  since: Date | null,
  written: Map<string, ChainEntryRow>,
): Promise<Map<string, ChainBreak>> {
  const breaks = new Map<string, ChainBreak>();
  if (segments.length === 0) return breaks;
  const byAccount = new Map(segments.map((g) => [g.accountId, g]));
  const walked = new Set<string>();
  const close = (walk: AccountWalk | null) => {
    const done = walk?.finish();
    if (done?.chainBreak) breaks.set(done.accountId, done.chainBreak);
  };
  await s.query(
    `DECLARE chain_segments NO SCROLL CURSOR FOR
       SELECT ${CHAIN_ENTRY_COLUMNS}
         FROM unnest($1::uuid[], $2::bigint[]) AS m (account_id, from_seq)
         JOIN ledger.ledgers l ON l.account_id = m.account_id AND (l.chain_seq > m.from_seq OR l.chain_seq IS NULL) AND l.created_at >= $3
         LEFT JOIN ledger.transactions t ON t.id = l.transaction_id
        ORDER BY l.account_id, l.chain_seq, l.id`,
    [segments.map((g) => g.accountId), segments.map((g) => g.from.seq), since ?? '-infinity'],
  );
  let current: AccountWalk | null = null;
  for (;;) {
    const rows = await s.query<ChainEntryRow>(`FETCH ${FETCH_ROWS} FROM chain_segments`);
    for (const row of rows) {
      if (row.account_id !== current?.accountId) {
        close(current);
        const segment: ChainSegment = byAccount.get(row.account_id)!;
        walked.add(segment.accountId);
        current = new AccountWalk(segment.accountId, segment.head, [], segment.from);
      }
      current.add(row);
      if (!written.has(row.transaction_id)) written.set(row.transaction_id, row);
    }
    if (rows.length < FETCH_ROWS) break;
  }
  close(current);
  await s.exec('CLOSE chain_segments');
  // A segment without a new entry: its head must still be the anchored one.
  for (const g of segments) if (!walked.has(g.accountId)) close(new AccountWalk(g.accountId, g.head, [], g.from));
  return breaks;
}
