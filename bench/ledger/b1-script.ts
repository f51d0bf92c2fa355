/**
 * B1, the SQL floor (docs/performance.md): the ledger's own transfer statements, as the service runs
 * them, in a pgbench custom script: ordered advisory locks (intent, then the two accounts by id)
 * before the snapshot, then at SERIALIZABLE: lock the intent row, lock both account rows in id
 * order, one statement inserting the transaction, both entries, balances, intent, event and
 * outbox row, commit, release. Each run re-executes a random pre-created intent (transactions
 * get intent_id NULL, since the real one is unique per intent). Its references carry the date
 * 000000, which the service never writes: with today's date a B1 reference ('B' and six hex digits)
 * is also one of the service's random tails, and a collision with a W1 confirm of the same run
 * aborted pgbench once (run R).
 */
export function b1Script(): string {
  return `\\set a random(1, :nacc)
\\set d random(1, :nacc - 1)
\\set b 1 + ((:a + :d - 1) % :nacc)
\\set i random(1, :nint)
SELECT (SELECT id FROM public.b1_int WHERE n = :i) AS intent, (SELECT id FROM public.b1_acc WHERE n = :a) AS src, (SELECT id FROM public.b1_acc WHERE n = :b) AS dst \\gset
SELECT ledger.lock_keys(ARRAY(SELECT ('x' || substr(replace(k::text, '-', ''), 1, 16))::bit(64)::bigint FROM (VALUES (0, :intent::uuid), (1, LEAST(:src::uuid, :dst::uuid)), (2, GREATEST(:src::uuid, :dst::uuid))) AS v(o, k) ORDER BY o), 3000);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL lock_timeout = '3000ms';
SELECT * FROM ledger.transaction_intents WHERE id = :intent::uuid FOR UPDATE;
SELECT id, account_type, currency, available_balance FROM ledger.accounts WHERE id = ANY(ARRAY[:src::uuid, :dst::uuid]) ORDER BY id FOR UPDATE;
WITH ids AS (SELECT gen_random_uuid() AS t, gen_random_uuid() AS d, gen_random_uuid() AS c), t AS (INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata) SELECT ids.t, 'MMPTX000000B' || lpad(upper(to_hex(nextval('public.b1_seq'))), 6, '0'), 'TRANSFER', NULL, 10, 0, 'XAF', 'bench', now(), now(), '{"typeCode":"B1"}'::jsonb FROM ids RETURNING id), l AS (INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at) SELECT ids.d, ids.t, :src::uuid, 'DEBIT', 10, 'XAF', ids.c, 'bench', now() FROM ids UNION ALL SELECT ids.c, ids.t, :dst::uuid, 'CREDIT', 10, 'XAF', ids.d, 'bench', now() FROM ids), b AS (UPDATE ledger.accounts a SET balance = a.balance + v.delta, available_balance = a.available_balance + v.delta, updated_at = now() FROM (VALUES (:src::uuid, -10), (:dst::uuid, 10)) AS v(id, delta) WHERE a.id = v.id), i AS (UPDATE ledger.transaction_intents SET updated_at = now() WHERE id = :intent::uuid), ev AS (INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, metadata, created_at) VALUES (:intent::uuid, 'PIN_VERIFIED', 'PIN_VERIFIED', 'bench_b1', 'bench', '{}'::jsonb, now())) INSERT INTO ledger.outbox (event_type, aggregate_id, payload, published_at) SELECT 'bench.b1', t.id, '{}'::jsonb, now() FROM t;
COMMIT;
SELECT pg_advisory_unlock_all();
`;
}
