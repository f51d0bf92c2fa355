import { createHash } from 'node:crypto';

/** What the first entry of every account's chain links to (32 zero bytes, in hex). */
export const GENESIS_HASH = '00'.repeat(32);

/**
 * One entry as the verification reads it, every value as PostgreSQL writes it as text (times as whole
 * microseconds since the epoch): the fields `ledger.chain_link` hashes, and the stored link.
 */
export interface ChainEntryRow {
  account_id: string;
  id: string;
  transaction_id: string;
  kind: string;
  amount: string;
  currency: string;
  counterparty_ledger_id: string;
  created_us: string;
  chain_seq: string;
  chain_prev: string;
  chain_hash: string;
  /** null: the entry's transaction row is gone */
  reference_id: string | null;
  type: string | null;
  tx_amount: string | null;
  fee: string | null;
  tx_currency: string | null;
  completed_us: string | null;
  intent_id: string | null;
  reversal_of: string | null;
}

/**
 * The hash of an entry linked to `prevHex`, computed here and not by the database: a superuser who
 * rewrites history could also redefine `ledger.chain_link` to agree with it. The text is the one the
 * migration's function builds (1765600000000-ledger-hash-chain.ts); the test of the chain compares
 * both on every entry the service writes.
 */
export function chainLink(prevHex: string, e: ChainEntryRow): string {
  const text = [
    'ledger-chain:v1',
    prevHex,
    e.chain_seq,
    e.id,
    e.transaction_id,
    e.account_id,
    e.kind,
    e.amount,
    e.currency,
    e.counterparty_ledger_id,
    e.created_us,
    e.reference_id ?? '',
    e.type ?? '',
    e.tx_amount ?? '',
    e.fee ?? '',
    e.tx_currency ?? '',
    e.completed_us ?? '',
    e.intent_id ?? '',
    e.reversal_of ?? '',
  ].join('|');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The columns of a `ChainEntryRow`, from `ledger.ledgers l` joined to `ledger.transactions t`. */
export const CHAIN_ENTRY_COLUMNS = `
  l.account_id, l.id, l.transaction_id, l.kind, l.amount::text AS amount, l.currency::text AS currency, l.counterparty_ledger_id,
  (extract(epoch FROM l.created_at) * 1000000)::bigint::text AS created_us, l.chain_seq::text AS chain_seq,
  encode(l.chain_prev, 'hex') AS chain_prev, encode(l.chain_hash, 'hex') AS chain_hash,
  t.reference_id, t.type, t.amount::text AS tx_amount, t.fee::text AS fee, t.currency::text AS tx_currency,
  (extract(epoch FROM t.completed_at) * 1000000)::bigint::text AS completed_us, t.intent_id, t.reversal_of`;

/** The query the verification walks: every entry with its transaction's fields, per account in chain order. */
export const CHAIN_WALK_SQL = `
  SELECT ${CHAIN_ENTRY_COLUMNS}
    FROM ledger.ledgers l LEFT JOIN ledger.transactions t ON t.id = l.transaction_id
   ORDER BY l.account_id, l.chain_seq, l.id`;
