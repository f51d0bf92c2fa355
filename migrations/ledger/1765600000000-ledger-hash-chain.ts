import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICES } from '@mm/contracts';

/** A piece of a function's text and what replaces it. */
type Swap = readonly [from: string, to: string];

/**
 * Rewrites a function as the database holds it (pg_get_functiondef), each `from` replaced by its
 * `to` exactly once (anything else is refused), as migrations 1765000000000 and 1765300000000 do:
 * the unchanged lines are not written out again, and `down` gets back the very text `up` started from.
 */
async function swapLines(q: QueryRunner, fn: string, swaps: readonly Swap[]): Promise<void> {
  const [{ def }] = (await q.query(`SELECT pg_get_functiondef($1::regprocedure) AS def`, [fn])) as { def: string }[];
  let swapped = def;
  for (const [from, to] of swaps) {
    if (swapped.split(from).length !== 2) throw new Error(`${fn} does not contain, once: ${from}`);
    swapped = swapped.replace(from, () => to);
  }
  await q.query(swapped);
}

const reversed = (swaps: readonly Swap[]): Swap[] => swaps.map(([from, to]) => [to, from] as const).reverse();

const CONFIRM = `ledger.execute_confirm(uuid, text[], timestamptz, uuid[], uuid, uuid, bigint, bigint, bigint, text, uuid, uuid, uuid, jsonb,
  uuid, text, timestamptz, text, text, text, text, jsonb, text, jsonb, jsonb, text, text, text, jsonb, uuid, text, jsonb, text, text, text, int, text, int)`;
const BATCH = 'ledger.execute_confirm_batch(jsonb, jsonb)';

/** What the chain of an account starts from. */
const GENESIS = `'\\x${'00'.repeat(32)}'::bytea`;

/**
 * The entries of one confirm, chained in memory on the heads of the accounts it locked (arrays
 * `heads`/`seqs` indexed like `ids`), then inserted with their links. Shared text of both functions.
 */
function chainEntries(v: {
  entries: string;
  ids: string;
  seqs: string;
  heads: string;
  chained: string | null;
  allowed: string;
  tx: string;
  reference: string;
  type: string;
  amount: string;
  fee: string;
  currency: string;
  completedAt: string;
  intent: string;
  createdBy: string;
  where: string;
}): string {
  return `FOR m_chain IN 0 .. coalesce(jsonb_array_length(${v.entries}), 0) - 1 LOOP
            v_entry := ${v.entries} -> m_chain;
            j_chain := array_position(${v.ids}, (v_entry ->> 'account_id')::uuid);
            IF j_chain IS NULL OR NOT (${v.allowed}) THEN
              RAISE EXCEPTION '${v.where}: entry % is on account %, which the call does not lock and update', m_chain, v_entry ->> 'account_id';
            END IF;
            ${v.seqs}[j_chain] := ${v.seqs}[j_chain] + 1;${v.chained ? `\n            ${v.chained}[j_chain] := true;` : ''}
            e_id := e_id || (v_entry ->> 'id')::uuid;
            e_tx := e_tx || ${v.tx};
            e_account := e_account || (v_entry ->> 'account_id')::uuid;
            e_kind := e_kind || (v_entry ->> 'kind');
            e_amount := e_amount || (v_entry ->> 'amount')::bigint;
            e_currency := e_currency || ${v.currency}::text;
            e_counterparty := e_counterparty || (v_entry ->> 'counterparty_id')::uuid;
            e_created_by := e_created_by || ${v.createdBy};
            e_created_at := e_created_at || ${v.completedAt};
            e_seq := e_seq || ${v.seqs}[j_chain];
            e_prev := e_prev || ${v.heads}[j_chain];
            ${v.heads}[j_chain] := ledger.chain_link(${v.heads}[j_chain], ${v.seqs}[j_chain], (v_entry ->> 'id')::uuid, ${v.tx},
              (v_entry ->> 'account_id')::uuid, v_entry ->> 'kind', (v_entry ->> 'amount')::bigint, ${v.currency}::text,
              (v_entry ->> 'counterparty_id')::uuid, ${v.completedAt}, ${v.reference}, ${v.type}, ${v.amount}, ${v.fee}, ${v.currency}::text,
              ${v.completedAt}, ${v.intent}, NULL);
            e_hash := e_hash || ${v.heads}[j_chain];
          END LOOP;`;
}

const ENTRY_VARIABLES = `m_chain int;
        j_chain int;
        v_entry jsonb;
        e_id uuid[] := '{}'; e_tx uuid[] := '{}'; e_account uuid[] := '{}'; e_kind text[] := '{}'; e_amount bigint[] := '{}';
        e_currency text[] := '{}'; e_counterparty uuid[] := '{}'; e_created_by text[] := '{}'; e_created_at timestamptz[] := '{}';
        e_seq bigint[] := '{}'; e_prev bytea[] := '{}'; e_hash bytea[] := '{}';`;

const INSERT_CHAINED = `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at,
                                     chain_seq, chain_prev, chain_hash)
          SELECT e.id, e.tx, e.account_id, e.kind, e.amount, e.currency, e.counterparty_id, e.created_by, e.created_at, e.seq, e.prev, e.hash
            FROM unnest(e_id, e_tx, e_account, e_kind, e_amount, e_currency, e_counterparty, e_created_by, e_created_at, e_seq, e_prev, e_hash)
                 AS e (id, tx, account_id, kind, amount, currency, counterparty_id, created_by, created_at, seq, prev, hash);`;

/** `execute_confirm`: the locked accounts' heads read with their locks, the entries chained, the heads written with the balances. */
const CONFIRM_SWAPS: readonly Swap[] = [
  [
    'v_agent_id text;\n      BEGIN',
    `v_agent_id text;\n        v_a_id uuid[];\n        v_a_seq bigint[];\n        v_a_head bytea[];\n        ${ENTRY_VARIABLES}\n      BEGIN`,
  ],
  [
    '(array_agg(a.wallet_id) FILTER (WHERE a.id = p_commission_to_id))[1]\n',
    '(array_agg(a.wallet_id) FILTER (WHERE a.id = p_commission_to_id))[1],\n               array_agg(a.id ORDER BY a.id), array_agg(a.chain_seq ORDER BY a.id), array_agg(a.chain_head ORDER BY a.id)\n',
  ],
  [
    'v_fee_type, v_cfrom_type, v_cto_type, v_cto_wallet\n',
    'v_fee_type, v_cfrom_type, v_cto_type, v_cto_wallet, v_a_id, v_a_seq, v_a_head\n',
  ],
  [
    'SELECT x.id, x.account_type, x.wallet_id, x.currency, x.available_balance FROM ledger.accounts x',
    'SELECT x.id, x.account_type, x.wallet_id, x.currency, x.available_balance, x.chain_seq, x.chain_head FROM ledger.accounts x',
  ],
  [
    `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
        SELECT e.id, p_transaction_id, e.account_id, e.kind, e.amount, p_currency, e.counterparty_id, v_created_by, p_completed_at
        FROM jsonb_to_recordset(p_entries) AS e (id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid);`,
    // Each entry linked to the one before it on its account (docs/ledger-chain.md); the heads live on the locked account rows.
    `${chainEntries({
      entries: 'p_entries',
      ids: 'v_a_id',
      seqs: 'v_a_seq',
      heads: 'v_a_head',
      chained: null,
      allowed: `p_deltas @> jsonb_build_array(jsonb_build_object('id', v_entry ->> 'account_id'))`,
      tx: 'p_transaction_id',
      reference: 'p_reference_id',
      type: 'v_i.type',
      amount: 'p_amount',
      fee: 'p_fee',
      currency: 'p_currency',
      completedAt: 'p_completed_at',
      intent: 'p_intent_id',
      createdBy: 'v_created_by',
      where: 'ledger.execute_confirm',
    })}
        ${INSERT_CHAINED}`,
  ],
  [
    'updated_at = p_completed_at\n          FROM jsonb_to_recordset(p_deltas)',
    `updated_at = p_completed_at,
               chain_seq = coalesce(v_a_seq[array_position(v_a_id, a.id)], a.chain_seq),
               chain_head = coalesce(v_a_head[array_position(v_a_id, a.id)], a.chain_head)
          FROM jsonb_to_recordset(p_deltas)`,
  ],
];

/** `execute_confirm_batch`: the same, the heads carried from one call of the group to the next in memory. */
const BATCH_SWAPS: readonly Swap[] = [
  [
    'a_updated timestamptz[];',
    `a_updated timestamptz[];\n        a_seq bigint[]; a_head bytea[]; a_chained boolean[];\n        ${ENTRY_VARIABLES}`,
  ],
  [
    "coalesce(array_agg(a.frozen_balance ORDER BY a.id), '{}')",
    "coalesce(array_agg(a.frozen_balance ORDER BY a.id), '{}'),\n               coalesce(array_agg(a.chain_seq ORDER BY a.id), '{}'), coalesce(array_agg(a.chain_head ORDER BY a.id), '{}')",
  ],
  [
    'INTO a_id, a_type, a_wallet, a_currency, a_balance, a_available, a_frozen',
    'INTO a_id, a_type, a_wallet, a_currency, a_balance, a_available, a_frozen, a_seq, a_head',
  ],
  [
    'SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.frozen_balance',
    'SELECT x.id, x.account_type, x.wallet_id, x.currency, x.balance, x.available_balance, x.frozen_balance, x.chain_seq, x.chain_head',
  ],
  [
    'a_updated := array_fill(NULL::timestamptz, ARRAY[cardinality(a_id)]);',
    'a_updated := array_fill(NULL::timestamptz, ARRAY[cardinality(a_id)]);\n        a_chained := array_fill(false, ARRAY[cardinality(a_id)]);',
  ],
  [
    '-- The intent as the next calls see it.',
    `-- The call's entries, each linked to the one before it on its account (the heads as the earlier calls left them).
          ${chainEntries({
            entries: 'c.entries',
            ids: 'a_id',
            seqs: 'a_seq',
            heads: 'a_head',
            chained: 'a_chained',
            allowed: 'a_id[j_chain] = ANY (c.account_ids)',
            tx: 'c.transaction_id',
            reference: 'c.reference_id',
            type: 'v_i.type',
            amount: 'c.amount',
            fee: 'c.fee',
            currency: 'c.currency',
            completedAt: 'c.completed_at',
            intent: 'c.intent_id',
            createdBy: 'coalesce(c.created_by, v_i.initiated_by)',
            where: 'ledger.execute_confirm_batch',
          })}

          -- The intent as the next calls see it.`,
  ],
  [
    `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
          SELECT e.id, (w.c).transaction_id, e.account_id, e.kind, e.amount, (w.c).currency, e.counterparty_id,
                 coalesce((w.c).created_by, (w.i).initiated_by), (w.c).completed_at
            FROM (SELECT w_calls[g] AS c, w_intents[g] AS i, g FROM generate_subscripts(w_calls, 1) g) w,
                 LATERAL jsonb_to_recordset((w.c).entries) AS e (id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid)
           ORDER BY w.g;`,
    INSERT_CHAINED,
  ],
  ['WHERE a_updated[g] IS NOT NULL);', 'WHERE a_updated[g] IS NOT NULL OR a_chained[g]);'],
  [
    'updated_at = a_updated[array_position(a_id, a.id)]',
    `updated_at = coalesce(a_updated[array_position(a_id, a.id)], a.updated_at),
                 chain_seq = a_seq[array_position(a_id, a.id)], chain_head = a_head[array_position(a_id, a.id)]`,
  ],
];

/**
 * The tamper-evident ledger (docs/ledger-chain.md).
 *
 * Every entry of `ledger.ledgers` carries `chain_seq` (its place in its account's chain, from 1),
 * `chain_prev` (the hash of the entry before it on that account, 32 zero bytes for the first) and
 * `chain_hash` = sha256 over a canonical text of the entry, of its transaction (reference, type,
 * amounts, currency, time, intent, reversal) and `chain_prev` (`ledger.chain_link`). The head of each
 * account's chain (`accounts.chain_seq`, `accounts.chain_head`) lives on the account row, which every
 * money transaction already locks and updates: no new lock, no row shared by unrelated payments.
 *
 * Who computes the links:
 * - the confirm functions (`execute_confirm`, `execute_confirm_batch`): in memory, on the heads read
 *   with the account locks they already take, written by the UPDATE that already writes the balances
 *   (no extra statement on the payment path);
 * - every other writer (corrections, the legacy test funding, a hand-written statement): the BEFORE
 *   INSERT trigger `trg_ledgers_chain`, for rows that arrive without a hash. The heads it moves are kept
 *   in a transaction-local setting and written to the account rows by a statement-level AFTER trigger:
 *   those writers insert entries and update balances in one statement with CTEs, and a BEFORE trigger
 *   may not update a row its own statement updates later.
 *
 * The trigger is a convenience, not a guard: a session that sets a wrong setting or a wrong hash only
 * breaks the chain, which the verification reports. What makes rewriting detectable is the verification
 * (apps/ledger-wallets/src/chain) and the signed anchors (`chain_anchors`, `chain_anchor_heads`),
 * whose key never reaches the database. Existing entries are chained here, per account in
 * (created_at, id) order.
 */
export class LedgerHashChain1765600000000 implements MigrationInterface {
  name = 'LedgerHashChain1765600000000';

  async up(q: QueryRunner): Promise<void> {
    const runtime = `"${SERVICES['ledger-wallets'].role}"`;

    await q.query(`
      ALTER TABLE ledger.accounts
        ADD COLUMN chain_seq bigint NOT NULL DEFAULT 0 CONSTRAINT "CHK_accounts_chain_seq" CHECK (chain_seq >= 0),
        ADD COLUMN chain_head bytea NOT NULL DEFAULT ${GENESIS} CONSTRAINT "CHK_accounts_chain_head" CHECK (octet_length(chain_head) = 32)`);
    await q.query(`ALTER TABLE ledger.ledgers ADD COLUMN chain_seq bigint, ADD COLUMN chain_prev bytea, ADD COLUMN chain_hash bytea`);

    // The one definition of a link. Inlined by the planner (one SELECT, no FROM), so PL/pgSQL evaluates
    // it as a simple expression: no executor per entry. Every field is of a closed alphabet (uuids,
    // integers, enum words, the reference's [A-Z0-9]), so '|' cannot occur inside one. Times are whole
    // microseconds since the epoch, independent of the session's time zone.
    await q.query(`
      CREATE FUNCTION ledger.chain_link(
        prev bytea, seq bigint, entry_id uuid, transaction_id uuid, account_id uuid, kind text, amount bigint, currency text,
        counterparty_id uuid, created_at timestamptz, reference_id text, tx_type text, tx_amount bigint, tx_fee bigint,
        tx_currency text, completed_at timestamptz, intent_id uuid, reversal_of uuid)
      RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT sha256(convert_to(concat_ws('|', 'ledger-chain:v1', encode(prev, 'hex'), seq, entry_id, transaction_id, account_id, kind,
          amount, currency, counterparty_id, (extract(epoch FROM created_at) * 1000000)::bigint, reference_id, tx_type, tx_amount, tx_fee,
          tx_currency, (extract(epoch FROM completed_at) * 1000000)::bigint, coalesce(intent_id::text, ''), coalesce(reversal_of::text, '')),
          'UTF8'))
      $$`);

    // Existing entries, in order, per account. The append-only trigger refuses the backfill's UPDATE:
    // it is switched off around it (the migration role owns the table), in this migration's transaction.
    await q.query(`ALTER TABLE ledger.ledgers DISABLE TRIGGER trg_ledgers_append_only`);
    await q.query(`
      DO $$
      DECLARE
        r record;
        cur uuid;
        seq bigint;
        head bytea;
        ids uuid[] := '{}'; seqs bigint[] := '{}'; prevs bytea[] := '{}'; hashes bytea[] := '{}';
        h_ids uuid[] := '{}'; h_seqs bigint[] := '{}'; h_heads bytea[] := '{}';
      BEGIN
        FOR r IN
          SELECT l.id, l.transaction_id, l.account_id, l.kind, l.amount, l.currency::text AS currency, l.counterparty_ledger_id, l.created_at,
                 t.reference_id, t.type, t.amount AS tx_amount, t.fee, t.currency::text AS tx_currency, t.completed_at, t.intent_id, t.reversal_of
            FROM ledger.ledgers l JOIN ledger.transactions t ON t.id = l.transaction_id
           ORDER BY l.account_id, l.created_at, l.id
        LOOP
          IF cur IS DISTINCT FROM r.account_id THEN
            IF cur IS NOT NULL THEN h_ids := h_ids || cur; h_seqs := h_seqs || seq; h_heads := h_heads || head; END IF;
            cur := r.account_id; seq := 0; head := ${GENESIS};
          END IF;
          seq := seq + 1;
          ids := ids || r.id; seqs := seqs || seq; prevs := prevs || head;
          head := ledger.chain_link(head, seq, r.id, r.transaction_id, r.account_id, r.kind, r.amount, r.currency, r.counterparty_ledger_id,
            r.created_at, r.reference_id, r.type, r.tx_amount, r.fee, r.tx_currency, r.completed_at, r.intent_id, r.reversal_of);
          hashes := hashes || head;
        END LOOP;
        IF cur IS NOT NULL THEN h_ids := h_ids || cur; h_seqs := h_seqs || seq; h_heads := h_heads || head; END IF;
        UPDATE ledger.ledgers l SET chain_seq = f.seq, chain_prev = f.prev, chain_hash = f.hash
          FROM unnest(ids, seqs, prevs, hashes) AS f (id, seq, prev, hash) WHERE l.id = f.id;
        UPDATE ledger.accounts a SET chain_seq = f.seq, chain_head = f.head
          FROM unnest(h_ids, h_seqs, h_heads) AS f (id, seq, head) WHERE a.id = f.id;
      END $$`);
    await q.query(`ALTER TABLE ledger.ledgers ENABLE TRIGGER trg_ledgers_append_only`);

    await q.query(`
      ALTER TABLE ledger.ledgers
        ALTER COLUMN chain_seq SET NOT NULL, ALTER COLUMN chain_prev SET NOT NULL, ALTER COLUMN chain_hash SET NOT NULL,
        ADD CONSTRAINT "CHK_ledgers_chain" CHECK (chain_seq >= 1 AND octet_length(chain_prev) = 32 AND octet_length(chain_hash) = 32)`);
    // No index on (account_id, chain_seq): it would be one more index entry written by every entry of
    // every payment, for a column only the verification reads (it sorts the whole ledger once per run,
    // and reports two entries at one place of a chain as INSERTED).

    await q.query(`
      CREATE FUNCTION ledger.chain_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        pending jsonb := coalesce(nullif(current_setting('ledger.chain_pending', true), ''), '{}')::jsonb;
        v_seq bigint;
        v_head bytea;
        t ledger.transactions%ROWTYPE;
      BEGIN
        IF pending ? NEW.account_id::text THEN
          v_seq := (pending -> NEW.account_id::text ->> 0)::bigint;
          v_head := decode(pending -> NEW.account_id::text ->> 1, 'hex');
        ELSE
          SELECT a.chain_seq, a.chain_head INTO v_seq, v_head FROM ledger.accounts a WHERE a.id = NEW.account_id;
        END IF;
        SELECT * INTO t FROM ledger.transactions x WHERE x.id = NEW.transaction_id;
        IF v_seq IS NULL OR t.id IS NULL THEN
          RAISE EXCEPTION 'ledger.ledgers %: account % or transaction % not found', NEW.id, NEW.account_id, NEW.transaction_id
            USING ERRCODE = 'foreign_key_violation';
        END IF;
        NEW.chain_seq := v_seq + 1;
        NEW.chain_prev := v_head;
        NEW.chain_hash := ledger.chain_link(v_head, NEW.chain_seq, NEW.id, NEW.transaction_id, NEW.account_id, NEW.kind, NEW.amount,
          NEW.currency::text, NEW.counterparty_ledger_id, NEW.created_at, t.reference_id, t.type, t.amount, t.fee, t.currency::text,
          t.completed_at, t.intent_id, t.reversal_of);
        PERFORM set_config('ledger.chain_pending',
          jsonb_set(pending, ARRAY[NEW.account_id::text], jsonb_build_array(NEW.chain_seq, encode(NEW.chain_hash, 'hex')))::text, true);
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE FUNCTION ledger.chain_heads_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE pending text := current_setting('ledger.chain_pending', true);
      BEGIN
        IF pending IS NULL OR pending = '' THEN RETURN NULL; END IF;
        UPDATE ledger.accounts a SET chain_seq = (p.value ->> 0)::bigint, chain_head = decode(p.value ->> 1, 'hex')
          FROM jsonb_each(pending::jsonb) p WHERE a.id = p.key::uuid;
        PERFORM set_config('ledger.chain_pending', '', true);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER trg_ledgers_chain BEFORE INSERT ON ledger.ledgers
      FOR EACH ROW WHEN (NEW.chain_hash IS NULL) EXECUTE FUNCTION ledger.chain_entry()`);
    await q.query(`
      CREATE TRIGGER trg_ledgers_chain_heads AFTER INSERT ON ledger.ledgers
      FOR EACH STATEMENT EXECUTE FUNCTION ledger.chain_heads_apply()`);

    await swapLines(q, CONFIRM, CONFIRM_SWAPS);
    await swapLines(q, BATCH, BATCH_SWAPS);

    // Signed anchors: the heads of every chain at a moment, and an HMAC the database cannot make.
    await q.query(`
      CREATE TABLE ledger.chain_anchors (
        n bigint PRIMARY KEY CHECK (n >= 1),
        at timestamptz NOT NULL,
        accounts bigint NOT NULL,
        entries bigint NOT NULL,
        heads_digest bytea NOT NULL CHECK (octet_length(heads_digest) = 32),
        mac bytea NOT NULL CHECK (octet_length(mac) = 32),
        key_id text NOT NULL
      )`);
    // The heads that moved since the anchor before: the state an anchor signs is, per account, the
    // latest row at or before it.
    await q.query(`
      CREATE TABLE ledger.chain_anchor_heads (
        account_id uuid NOT NULL,
        anchor_n bigint NOT NULL REFERENCES ledger.chain_anchors (n),
        seq bigint NOT NULL CHECK (seq >= 1),
        hash bytea NOT NULL CHECK (octet_length(hash) = 32),
        PRIMARY KEY (account_id, anchor_n)
      )`);
    await q.query(`CREATE INDEX "IDX_chain_anchor_heads_anchor" ON ledger.chain_anchor_heads (anchor_n)`);
    await q.query(`
      CREATE TABLE ledger.chain_verifications (
        id uuid PRIMARY KEY,
        trigger text NOT NULL CHECK (trigger IN ('SCHEDULED', 'ON_DEMAND')),
        status text NOT NULL CHECK (status IN ('INTACT', 'BROKEN')),
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        accounts_checked bigint NOT NULL,
        entries_checked bigint NOT NULL,
        broken_accounts bigint NOT NULL,
        first_break jsonb,
        anchor jsonb NOT NULL,
        requested_by text NOT NULL,
        requested_by_roles text[] NOT NULL DEFAULT '{}',
        caller text,
        request_id text,
        correlation_id text,
        integrity_check_id uuid
      )`);
    await q.query(`CREATE INDEX "IDX_chain_verifications_started" ON ledger.chain_verifications (started_at)`);
    await q.query(`
      CREATE FUNCTION ledger.chain_record_is_final() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '%.% is append-only: % operation forbidden', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
      END $$`);
    for (const table of ['chain_anchors', 'chain_anchor_heads', 'chain_verifications']) {
      await q.query(`
        CREATE TRIGGER trg_${table}_append_only BEFORE UPDATE OR DELETE ON ledger.${table}
        FOR EACH ROW EXECUTE FUNCTION ledger.chain_record_is_final()`);
      await q.query(`
        CREATE TRIGGER trg_${table}_no_truncate BEFORE TRUNCATE ON ledger.${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger.chain_record_is_final()`);
      // Default privileges gave the runtime role every row privilege: it reads and appends only.
      await q.query(`REVOKE UPDATE, DELETE, TRUNCATE ON ledger.${table} FROM ${runtime}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['chain_verifications', 'chain_anchor_heads', 'chain_anchors'])
      await q.query(`DROP TABLE IF EXISTS ledger.${table}`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.chain_record_is_final()`);
    await swapLines(q, BATCH, reversed(BATCH_SWAPS));
    await swapLines(q, CONFIRM, reversed(CONFIRM_SWAPS));
    await q.query(`DROP TRIGGER IF EXISTS trg_ledgers_chain_heads ON ledger.ledgers`);
    await q.query(`DROP TRIGGER IF EXISTS trg_ledgers_chain ON ledger.ledgers`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.chain_heads_apply()`);
    await q.query(`DROP FUNCTION IF EXISTS ledger.chain_entry()`);
    await q.query(`ALTER TABLE ledger.ledgers DROP COLUMN chain_seq, DROP COLUMN chain_prev, DROP COLUMN chain_hash`);
    await q.query(
      `DROP FUNCTION IF EXISTS ledger.chain_link(bytea, bigint, uuid, uuid, uuid, text, bigint, text, uuid, timestamptz, text, text, bigint, bigint, text, timestamptz, uuid, uuid)`,
    );
    await q.query(`ALTER TABLE ledger.accounts DROP COLUMN chain_seq, DROP COLUMN chain_head`);
  }
}
