import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';

export const FUNDING = 1_000_000_000;
export const AMOUNT = 10;
/** `initiated_by` of every bench intent: the user whose PIN proofs the PIN step presents. */
export const BENCH_INITIATOR = 'bench';

/**
 * Bench fixtures written straight in SQL (setup is not what we measure), keeping every ledger
 * invariant: each account is funded by a balanced adjustment from the suspense account, and each
 * pre-created intent freezes its amount on its source account.
 */
export async function createFundedAccounts(
  admin: Client,
  count: number,
  ownerType: 'USER' | 'MERCHANT',
  prefix: string,
): Promise<string[]> {
  const type = ownerType === 'USER' ? 'customer' : 'merchant';
  await admin.query(
    `INSERT INTO ledger.wallets (owner_type, owner_id, holder_name) SELECT $1, $2 || g, $2 || g FROM generate_series(1, $3) g`,
    [ownerType, prefix, count],
  );
  const rows = await admin.query<{ id: string }>(
    `INSERT INTO ledger.accounts (wallet_id, account_type, currency, holder)
     SELECT id, $1, 'XAF', owner_id FROM ledger.wallets WHERE owner_type = $2 AND owner_id LIKE $3 || '%' RETURNING id`,
    [type, ownerType, prefix],
  );
  const ids = rows.rows.map((r) => r.id);
  await admin.query(
    `DO $$
     DECLARE r record; t uuid; d uuid; c uuid; s uuid; n bigint := 0; base bigint := (SELECT count(*) FROM ledger.transactions);
     BEGIN
       SELECT id INTO s FROM ledger.accounts WHERE account_type = 'suspense' AND currency = 'XAF';
       FOR r IN SELECT id FROM ledger.accounts WHERE holder LIKE '${prefix}%' LOOP
         t := gen_random_uuid(); d := gen_random_uuid(); c := gen_random_uuid(); n := n + 1;
         INSERT INTO ledger.transactions (id, reference_id, type, amount, currency, created_by, initiated_at, metadata)
         VALUES (t, 'MMPTX' || to_char(now(), 'YYMMDD') || 'F' || lpad((base + n)::text, 6, '0'), 'ADJUSTMENT', ${FUNDING}, 'XAF', 'bench', now(), '{"typeCode":"BENCH_FUNDING"}');
         INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
         VALUES (d, t, s, 'DEBIT', ${FUNDING}, 'XAF', c, 'bench'), (c, t, r.id, 'CREDIT', ${FUNDING}, 'XAF', d, 'bench');
       END LOOP;
       UPDATE ledger.accounts SET balance = balance + ${FUNDING}, available_balance = available_balance + ${FUNDING} WHERE holder LIKE '${prefix}%';
       UPDATE ledger.accounts SET balance = balance - ${FUNDING} * n, available_balance = available_balance - ${FUNDING} * n WHERE id = s;
     END $$`,
  );
  return ids;
}

export interface PoolIntent {
  id: string;
  source: string;
  destination: string;
}

/**
 * Intents already at PIN_VERIFIED (amount + fee frozen), ready for the transition to SUCCEEDED; or
 * at CREATED, ready for the PIN step (whose consent proofs name the initiator, `bench`).
 */
export async function createReadyIntents(
  admin: Client,
  pairs: [string, string][],
  status: 'PIN_VERIFIED' | 'CREATED' = 'PIN_VERIFIED',
  fee = 0,
): Promise<PoolIntent[]> {
  const frozen = AMOUNT + fee;
  const out: PoolIntent[] = [];
  for (let i = 0; i < pairs.length; i += 5_000) {
    const chunk = pairs.slice(i, i + 5_000);
    const ids = chunk.map(() => randomUUID());
    await admin.query('BEGIN');
    await admin.query(
      `INSERT INTO ledger.transaction_intents (id, type, status, idempotency_key, source_account_id, destination_account_id, amount, fee, frozen_amount,
         currency, initiated_by, expires_at)
       SELECT x.id, 'TRANSFER', $4, x.id::text, x.src, x.dst, ${AMOUNT}, ${fee}, ${frozen}, 'XAF', '${BENCH_INITIATOR}', now() + interval '2 hours'
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS x(id, src, dst)`,
      [ids, chunk.map((p) => p[0]), chunk.map((p) => p[1]), status],
    );
    await admin.query(
      `UPDATE ledger.accounts a SET available_balance = a.available_balance - s.total, frozen_balance = a.frozen_balance + s.total
       FROM (SELECT src, count(*) * ${frozen} AS total FROM unnest($1::uuid[]) AS src GROUP BY src) s WHERE a.id = s.src`,
      [chunk.map((p) => p[0])],
    );
    await admin.query('COMMIT');
    chunk.forEach((p, k) => out.push({ id: ids[k], source: p[0], destination: p[1] }));
  }
  return out;
}

export function randomPairs(accounts: string[], count: number, destination?: string): [string, string][] {
  return Array.from({ length: count }, () => {
    const a = accounts[Math.floor(Math.random() * accounts.length)];
    if (destination) return [a, destination] as [string, string];
    let b = a;
    while (b === a) b = accounts[Math.floor(Math.random() * accounts.length)];
    return [a, b] as [string, string];
  });
}
