import { type Hash, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { DbSession } from '../db/db-session';
import type { AnchorKeyring } from './chain-keyring';

/** What the first anchor's MAC chains to. */
export const NO_MAC = '00'.repeat(32);
/** Rows per FETCH from a cursor over `chain_anchor_heads`. */
export const ANCHOR_ROWS_PER_FETCH = 5_000;

/** An anchor as stored, bytes in hex. `moved_digest` null: signed before anchors signed their own rows. */
export interface AnchorRow {
  n: string;
  at: Date;
  accounts: string;
  entries: string;
  heads_digest: string;
  moved_digest: string | null;
  mac: string;
  key_id: string;
}

/** One row of `chain_anchor_heads`: anchor `anchor_n` recorded this account's head. */
export interface AnchorHeadRow {
  account_id: string;
  anchor_n: string;
  seq: string;
  hash: string;
}

/** What an anchor signs, besides the MAC of the anchor before it. */
export interface AnchorFields {
  n: number;
  at: string;
  accounts: number;
  entries: number;
  digest: string;
  /** null: the format before anchors signed their own rows (verified as such, never written any more) */
  movedDigest: string | null;
}

export const ANCHOR_COLUMNS = `n, at, accounts, entries, encode(heads_digest, 'hex') AS heads_digest, encode(moved_digest, 'hex') AS moved_digest,
  encode(mac, 'hex') AS mac, key_id`;

export function anchorFields(a: AnchorRow): AnchorFields {
  return {
    n: Number(a.n),
    at: new Date(a.at).toISOString(),
    accounts: Number(a.accounts),
    entries: Number(a.entries),
    digest: a.heads_digest,
    movedDigest: a.moved_digest,
  };
}

/** HMAC-SHA256 of an anchor under the key, chained to the MAC of the anchor before it. */
export function anchorMac(key: Buffer, a: AnchorFields, prevMac: string): string {
  const text =
    a.movedDigest === null
      ? `ledger-chain-anchor:v1|${a.n}|${a.at}|${a.accounts}|${a.entries}|${a.digest}|${prevMac}`
      : `ledger-chain-anchor:v2|${a.n}|${a.at}|${a.accounts}|${a.entries}|${a.digest}|${a.movedDigest}|${prevMac}`;
  return createHmac('sha256', key).update(text).digest('hex');
}

/** One head in a digest's text. */
export const headLine = (accountId: string, seq: string | number, hash: string): string => `${accountId}:${seq}:${hash}\n`;

/** sha256 over "account:seq:hash\n" of each head, in the order given (by account id): what an anchor signs. */
export function headsDigest(heads: Iterable<{ account_id: string; seq: string | number; hash: string }>): string {
  const h = createHash('sha256');
  for (const r of heads) h.update(headLine(r.account_id, r.seq, r.hash));
  return h.digest('hex');
}

export function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The anchors' own records, checked: which of them can be trusted to say what the chain was. */
export interface AnchorRecordsCheck {
  /** the last anchor; null: none written yet */
  last: AnchorFields | null;
  /** anchors 1..trustedThrough are signed with the key and their rows are the ones they signed */
  trustedThrough: number;
  /** the first anchor whose signature or rows fail, how, and when it was signed (µs since the epoch; null: unknown) */
  problem: { n: number; detail: string; atUs: string | null } | null;
}

/**
 * Checks every anchor's MAC in turn (each chains the one before) with the key it names, then, in one pass over
 * `chain_anchor_heads` in primary-key order (account, anchor), every anchor's rows against the
 * digest it signed (one running sha256 per anchor: rows of one anchor arrive in account order),
 * and the last anchor's whole state (per account, its latest row) against its heads digest. Read in
 * the caller's snapshot, with a cursor: the rows are never all in memory.
 */
export async function checkAnchorRecords(s: DbSession, keys: AnchorKeyring): Promise<AnchorRecordsCheck> {
  const rows = await s.query<AnchorRow>(`SELECT ${ANCHOR_COLUMNS} FROM ledger.chain_anchors ORDER BY n`);
  const anchors = rows.map(anchorFields);
  if (anchors.length === 0) return { last: null, trustedThrough: 0, problem: null };
  const last = anchors[anchors.length - 1];
  let problem: AnchorRecordsCheck['problem'] = null;
  const fail = (n: number, detail: string) => {
    const signed = anchors.find((a) => a.n === n);
    if (!problem || n < problem.n) problem = { n, detail, atUs: signed ? String(BigInt(Date.parse(signed.at)) * 1000n) : null };
  };

  let prevMac = NO_MAC;
  for (const [i, a] of anchors.entries()) {
    if (a.n !== i + 1) {
      fail(i + 1, `anchor ${a.n} follows anchor ${i}: anchors are missing`);
      break;
    }
    const key = keys.get(rows[i].key_id);
    if (!key) {
      fail(a.n, `anchor ${a.n} names key ${rows[i].key_id}, neither LEDGER_CHAIN_ANCHOR_KEY nor one of LEDGER_CHAIN_ANCHOR_RETIRED_KEYS`);
      break;
    }
    if (!sameHex(anchorMac(key, a, prevMac), rows[i].mac)) {
      fail(a.n, `anchor ${a.n} is not signed with the key it names (${rows[i].key_id})`);
      break;
    }
    prevMac = rows[i].mac;
  }

  const moved = new Map<number, Hash>(anchors.filter((a) => a.movedDigest !== null).map((a) => [a.n, createHash('sha256')]));
  const state = createHash('sha256');
  let stateAccounts = 0;
  let stateEntries = 0;
  let latest: AnchorHeadRow | null = null;
  const settle = (row: AnchorHeadRow | null) => {
    if (!row) return;
    state.update(headLine(row.account_id, row.seq, row.hash));
    stateAccounts++;
    stateEntries += Number(row.seq);
  };
  await s.exec(`DECLARE anchor_records NO SCROLL CURSOR FOR
    SELECT account_id, anchor_n::text AS anchor_n, seq::text AS seq, encode(hash, 'hex') AS hash FROM ledger.chain_anchor_heads ORDER BY account_id, anchor_n`);
  for (;;) {
    const page = await s.query<AnchorHeadRow>(`FETCH ${ANCHOR_ROWS_PER_FETCH} FROM anchor_records`);
    for (const row of page) {
      moved.get(Number(row.anchor_n))?.update(headLine(row.account_id, row.seq, row.hash));
      if (latest && latest.account_id !== row.account_id) settle(latest);
      latest = row;
    }
    if (page.length < ANCHOR_ROWS_PER_FETCH) break;
  }
  settle(latest);
  await s.exec('CLOSE anchor_records');

  for (const a of anchors) {
    const digest = moved.get(a.n)?.digest('hex');
    if (digest !== undefined && digest !== a.movedDigest) fail(a.n, `the heads recorded for anchor ${a.n} are not the ones it signed`);
  }
  if (stateAccounts !== last.accounts || stateEntries !== last.entries || state.digest('hex') !== last.digest) {
    fail(last.n, `the heads recorded for anchor ${last.n} are not the ones it signed`);
  }
  const found = problem as AnchorRecordsCheck['problem'];
  return { last, trustedThrough: found ? found.n - 1 : last.n, problem: found };
}
