import type { Client } from 'pg';

/**
 * B1, the SQL floor (docs/performance.md): the ledger's own transfer statements, as the service runs
 * them, in a pgbench custom script: ordered advisory locks (intent, then the two accounts by id)
 * before the snapshot, then at SERIALIZABLE: lock the intent row, lock both account rows in id
 * order (reading their chain heads, as the confirm functions do), one statement inserting the
 * transaction, both entries, balances and heads, intent, event and outbox row, commit, release.
 * Each run re-executes a random pre-created intent (transactions get intent_id NULL, since the real
 * one is unique per intent). Its references carry the date 000000, which the service never writes:
 * with today's date a B1 reference ('B' and six hex digits) is also one of the service's random
 * tails, and a collision with a W1 confirm of the same run aborted pgbench once (run R).
 *
 * The entries carry their hash-chain links (docs/ledger-chain.md), computed in the statement with
 * `ledger.chain_link` on the heads the lock read, and the heads are written by the UPDATE that writes
 * the balances: the work the confirm functions do in memory. Without them the entries would take the
 * chain trigger's path (two more queries per entry and the heads' update per statement), work the
 * service never does, and B1 would no longer be the service's SQL without the service.
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
SELECT (array_agg(x.chain_seq) FILTER (WHERE x.id = :src::uuid))[1] AS sseq, encode((array_agg(x.chain_head) FILTER (WHERE x.id = :src::uuid))[1], 'hex') AS shead, (array_agg(x.chain_seq) FILTER (WHERE x.id = :dst::uuid))[1] AS dseq, encode((array_agg(x.chain_head) FILTER (WHERE x.id = :dst::uuid))[1], 'hex') AS dhead FROM (SELECT id, account_type, currency, available_balance, chain_seq, chain_head FROM ledger.accounts WHERE id = ANY(ARRAY[:src::uuid, :dst::uuid]) ORDER BY id FOR UPDATE) x \\gset
WITH ids AS (SELECT gen_random_uuid() AS t, gen_random_uuid() AS d, gen_random_uuid() AS c, 'MMPTX000000B' || lpad(upper(to_hex(nextval('public.b1_seq'))), 6, '0') AS ref), h AS (SELECT ids.*, ledger.chain_link(decode(:shead, 'hex'), :sseq::bigint + 1, ids.d, ids.t, :src::uuid, 'DEBIT', 10, 'XAF', ids.c, now(), ids.ref, 'TRANSFER', 10, 0, 'XAF', now(), NULL, NULL) AS dh, ledger.chain_link(decode(:dhead, 'hex'), :dseq::bigint + 1, ids.c, ids.t, :dst::uuid, 'CREDIT', 10, 'XAF', ids.d, now(), ids.ref, 'TRANSFER', 10, 0, 'XAF', now(), NULL, NULL) AS ch FROM ids), t AS (INSERT INTO ledger.transactions (id, reference_id, type, intent_id, amount, fee, currency, created_by, initiated_at, completed_at, metadata) SELECT h.t, h.ref, 'TRANSFER', NULL, 10, 0, 'XAF', 'bench', now(), now(), '{"typeCode":"B1"}'::jsonb FROM h RETURNING id), l AS (INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at, chain_seq, chain_prev, chain_hash) SELECT h.d, h.t, :src::uuid, 'DEBIT', 10, 'XAF', h.c, 'bench', now(), :sseq::bigint + 1, decode(:shead, 'hex'), h.dh FROM h UNION ALL SELECT h.c, h.t, :dst::uuid, 'CREDIT', 10, 'XAF', h.d, 'bench', now(), :dseq::bigint + 1, decode(:dhead, 'hex'), h.ch FROM h), b AS (UPDATE ledger.accounts a SET balance = a.balance + v.delta, available_balance = a.available_balance + v.delta, updated_at = now(), chain_seq = v.seq, chain_head = v.head FROM (SELECT :src::uuid, -10, :sseq::bigint + 1, h.dh FROM h UNION ALL SELECT :dst::uuid, 10, :dseq::bigint + 1, h.ch FROM h) AS v(id, delta, seq, head) WHERE a.id = v.id), i AS (UPDATE ledger.transaction_intents SET updated_at = now() WHERE id = :intent::uuid), ev AS (INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, metadata, created_at) VALUES (:intent::uuid, 'PIN_VERIFIED', 'PIN_VERIFIED', 'bench_b1', 'bench', '{}'::jsonb, now())) INSERT INTO ledger.outbox (event_type, aggregate_id, payload, published_at) SELECT 'bench.b1', t.id, '{}'::jsonb, now() FROM t;
COMMIT;
SELECT pg_advisory_unlock_all();
`;
}

/** The tables the script draws from: the accounts and the ready intents, numbered from 1, and the references' sequence. */
export async function createB1Tables(admin: Client, accounts: string[], intents: string[]): Promise<void> {
  await admin.query(`CREATE TABLE public.b1_acc (n int PRIMARY KEY, id uuid NOT NULL)`);
  await admin.query(`CREATE TABLE public.b1_int (n int PRIMARY KEY, id uuid NOT NULL)`);
  await admin.query(`CREATE SEQUENCE public.b1_seq`);
  await admin.query(`INSERT INTO public.b1_acc SELECT g, x FROM unnest($1::uuid[]) WITH ORDINALITY AS u(x, g)`, [accounts]);
  await admin.query(`INSERT INTO public.b1_int SELECT g, x FROM unnest($1::uuid[]) WITH ORDINALITY AS u(x, g)`, [intents]);
}
