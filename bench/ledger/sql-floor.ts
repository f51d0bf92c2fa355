/**
 * `node dist/bench/ledger/sql-floor.js [variant,…]` — where the database's CPU of one confirm goes
 * (docs/performance.md "`bench:ledger`"). On a private database (migrated, funded, `SQL_FLOOR_INTENTS` intents ready), one
 * connection replays confirms one after the other, each variant on its own intents, the variants
 * interleaved in rounds so that they all see the same load of a shared machine. For each variant it
 * prints the backend's CPU per confirm (from /proc, the measure a busy machine does not distort
 * much) and the wall time per confirm as the client sees it.
 *
 * Variants: the confirm as the service sends it alone (`procedure`) and in a group commit's batch of
 * N confirms (`batch<N>`, CPU and wall time per confirm; `calls<N>`: the same group as one call of
 * `ledger.execute_confirm` per confirm, as batches were sent before), and the same with parts taken out
 * (triggers, foreign keys, advisory locks…) on this throw-away database, to learn what each part
 * costs. A variant that removes a guarantee is a measurement, never a proposal.
 */
import { Client } from 'pg';
import { withDatabase, migrateAll } from '../../tools/db';
import { serverSql } from '../lib/server-sql';
import { TransferExecutor } from '../../apps/ledger-wallets/src/execution/transfer-executor.service';
import {
  CONFIRM_CHECKED_CALL,
  type ConfirmCall,
  EXECUTE_CONFIRM_CALL,
  confirmCallLiteral,
} from '../../apps/ledger-wallets/src/db/execute-confirm-call';
import type { LedgerWalletsConfig } from '../../apps/ledger-wallets/src/ledger-wallets.config';
import type { TechnicalAccountsService } from '../../apps/ledger-wallets/src/wallets/technical-accounts.service';
import { BatchQuery, type BatchStep } from '../../apps/ledger-wallets/src/db/batch-query';
import { groupLockKeys } from '../../apps/ledger-wallets/src/db/group-commit';
import { confirmBatch, openingStatements, releaseSql } from '../../apps/ledger-wallets/src/db/money-statements';
import { moneyLockKeys } from '../../apps/ledger-wallets/src/db/lock-keys';
import { cpuMsOf } from './cpu';
import { AMOUNT, type PoolIntent, createFundedAccounts, createReadyIntents, randomPairs } from './fixtures';

const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Cleaned as run.ts cleans it: lower case, or the unquoted DROP would miss a mixed-case name.
const DB_SUFFIX = (process.env.BENCH_DB_SUFFIX ?? '').replace(/[^a-z0-9_]/gi, '').toLowerCase();
const DB = `mm_bench_sqlfloor${DB_SUFFIX ? `_${DB_SUFFIX}` : ''}`;
const PER_ROUND = Number(process.env.SQL_FLOOR_PER_ROUND ?? 400);
const ROUNDS = Number(process.env.SQL_FLOOR_ROUNDS ?? 3);
const TIMEOUT = 3000;

interface Ctx {
  c: Client;
  executor: TransferExecutor;
}

/** The function call of one confirm, built by the service's own code (the function reads the intent itself). */
function planOf(ctx: Ctx, intent: PoolIntent): { call: ConfirmCall; keys: bigint[]; ordered: string[] } {
  const ordered = [intent.source, intent.destination].sort();
  const resolved = {
    source: intent.source,
    destination: intent.destination,
    amount: AMOUNT,
    fee: 0,
    feeAccount: intent.destination,
    commission: 0,
    commissionFrom: null,
    commissionTo: null,
  };
  const plan = ctx.executor.plan({
    intentId: intent.id,
    resolved,
    currency: 'XAF',
    meta: { createdBy: 'bench', typeCode: 'P2P', agentId: null, description: null },
    actor: { id: 'bench' },
    now: new Date(),
  });
  return { call: plan.call, keys: moneyLockKeys(ordered, intent.id), ordered };
}

/** A refused confirm would be timed as if it had written: every variant checks the function's answer. */
function confirmed(result: unknown): void {
  const results = (Array.isArray(result) ? result : [result]) as { rows?: Record<string, unknown>[] }[];
  const row = results.map((r) => r.rows?.[0]).find((r) => r !== undefined && 'refusal' in r);
  if (!row?.ok) throw new Error(`the confirm was refused: ${String(row?.refusal)}`);
}

interface Variant {
  /** per-connection setup on the variant's own connection (and its undo) */
  setup?: string;
  teardown?: string;
  /** confirms per run (one transaction): a batch's size */
  size?: number;
  run(ctx: Ctx, intents: PoolIntent[]): Promise<void>;
}

/** The advisory locks of a group, as the group commit computes them. */
const groupKeys = (intents: PoolIntent[]) => groupLockKeys(intents.map((i) => ({ intentId: i.id, accountIds: [i.source, i.destination] })));

/** Sends a group's steps as one exchange (BatchQuery) and returns what completed; a server error is thrown. */
async function sendGroup(ctx: Ctx, name: string, prepared: string, steps: BatchStep[]) {
  const batch = new BatchQuery(name, prepared, steps);
  ctx.c.query(batch as never);
  const { results, error } = await batch.done;
  if (error) throw error;
  return results;
}

/**
 * confirms as a group commit's batch sends them (LedgerDb.together): the opening with the locks of
 * all, one call of ledger.execute_confirm_batch with every confirm, the COMMIT and the release, in one
 * batch with a single Sync
 */
const asBatch = async (ctx: Ctx, intents: PoolIntent[]) => {
  const keys = groupKeys(intents);
  const plan = confirmBatch(
    openingStatements(keys, TIMEOUT),
    intents.map((i) => planOf(ctx, i).call),
    keys,
  );
  const results = await sendGroup(ctx, plan.name, plan.prepared, plan.steps);
  const rows = results[plan.callAt]?.rows ?? [];
  if (rows.length !== intents.length) throw new Error(`the batch answered ${rows.length} rows for ${intents.length} confirms`);
  for (const row of rows) confirmed({ rows: [row] });
};

/**
 * the same group as the batch was sent before migration 1765000000000: one prepared call of
 * ledger.execute_confirm per confirm, between the same opening and COMMIT (`calls<N>`)
 */
const asCalls = async (ctx: Ctx, intents: PoolIntent[]) => {
  const keys = groupKeys(intents);
  const opening = openingStatements(keys, TIMEOUT);
  const results = await sendGroup(ctx, 'ledger_execute_confirm', EXECUTE_CONFIRM_CALL, [
    ...opening.map((text) => ({ text })),
    ...intents.map((i) => ({ text: EXECUTE_CONFIRM_CALL, values: [confirmCallLiteral(planOf(ctx, i).call)] })),
    { text: 'COMMIT' },
    { text: releaseSql(keys) },
  ]);
  for (const call of results.slice(opening.length, opening.length + intents.length)) confirmed(call);
};

/** one prepared CALL of ledger.confirm_checked, as the service sends a confirm that runs alone */
const asProcedure = async (ctx: Ctx, [intent]: PoolIntent[]) => {
  const p = planOf(ctx, intent);
  const keys = p.keys.map(String);
  confirmed(await ctx.c.query({ name: 'confirm', text: CONFIRM_CHECKED_CALL, values: [keys, keys, TIMEOUT, confirmCallLiteral(p.call)] }));
};

const VARIANTS: Record<string, Variant> = {
  procedure: { run: asProcedure },
  // every trigger off, foreign keys included (replica role): what all of them cost together
  notriggers: { setup: `SET session_replication_role = replica`, teardown: `SET session_replication_role = origin`, run: asProcedure },
  // only the double-entry constraint triggers off (ALTER on this private database, restored after)
  nobalance: {
    setup: `ALTER TABLE ledger.transactions DISABLE TRIGGER trg_transactions_balanced; ALTER TABLE ledger.ledgers DISABLE TRIGGER trg_ledgers_balanced; ALTER TABLE ledger.ledgers DISABLE TRIGGER trg_ledgers_forget_balanced`,
    teardown: `ALTER TABLE ledger.transactions ENABLE TRIGGER trg_transactions_balanced; ALTER TABLE ledger.ledgers ENABLE TRIGGER trg_ledgers_balanced; ALTER TABLE ledger.ledgers ENABLE TRIGGER trg_ledgers_forget_balanced`,
    run: asProcedure,
  },
  // no advisory locks, no SET LOCAL: the function alone in its SERIALIZABLE transaction
  nolocks: {
    run: async (ctx, [intent]) => {
      const p = planOf(ctx, intent);
      await ctx.c.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      confirmed(await ctx.c.query({ name: 'execute', text: EXECUTE_CONFIRM_CALL, values: [confirmCallLiteral(p.call)] }));
      await ctx.c.query('COMMIT');
    },
  },
  // synchronous_commit off: the WAL flush's share of the wall time (not a CPU saving)
  asynccommit: { setup: `SET synchronous_commit = off`, teardown: `SET synchronous_commit = on`, run: asProcedure },
};

/** A named variant; `batch<N>` is N confirms in one group commit's transaction (`batch1`: one alone, sent that way). */
function variant(name: string): Variant {
  const batch = /^batch(\d+)$/.exec(name);
  if (batch && Number(batch[1]) >= 1) return { size: Number(batch[1]), run: asBatch };
  const calls = /^calls(\d+)$/.exec(name);
  if (calls && Number(calls[1]) >= 1) return { size: Number(calls[1]), run: asCalls };
  const known = VARIANTS[name];
  if (!known) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}, batch<N>, calls<N>`);
  return known;
}

async function main(): Promise<void> {
  const names = (process.argv[2] ?? 'procedure,batch1,batch8,nolocks,nobalance,notriggers').split(',');
  const variants = new Map(names.map((n) => [n, variant(n)]));
  await serverSql(ADMIN, `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  const url = withDatabase(ADMIN, DB);
  await migrateAll(url);
  const c = new Client({ connectionString: url });
  await c.connect();
  const accounts = await createFundedAccounts(c, 2_000, 'USER', 'floor-');
  const pools = new Map<string, PoolIntent[]>();
  for (const n of names) pools.set(n, await createReadyIntents(c, randomPairs(accounts, PER_ROUND * ROUNDS + 50)));
  await c.query('VACUUM ANALYZE');
  await c.query('CHECKPOINT');
  const executor = new TransferExecutor({ LEDGER_REFERENCE_PREFIX: 'MMP' } as LedgerWalletsConfig, {} as TechnicalAccountsService);
  const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const ctx: Ctx = { c, executor };
  // For `perf record -g -p <pid>` on the backend (SQL_FLOOR_PAUSE=seconds to attach before the measure).
  process.stdout.write(`backend pid ${pid}\n`);
  if (process.env.SQL_FLOOR_PAUSE) await new Promise((r) => setTimeout(r, Number(process.env.SQL_FLOOR_PAUSE) * 1000));
  const totals = new Map(names.map((n) => [n, { cpu: 0, wall: 0, ops: 0 }]));
  // Runs of `size` confirms each, out of `count` of the variant's intents (a remainder smaller than a run is left).
  const runs = async (n: string, v: Variant, count: number): Promise<number> => {
    const size = v.size ?? 1;
    const intents = pools.get(n)!.splice(0, count);
    let done = 0;
    for (; done + size <= intents.length; done += size) await v.run(ctx, intents.slice(done, done + size));
    return done;
  };
  // warm the plans of every variant
  for (const [n, v] of variants) await runs(n, v, 50);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [n, v] of variants) {
      if (v.setup) await c.query(v.setup);
      const cpu0 = cpuMsOf(pid);
      const t0 = performance.now();
      const confirms = await runs(n, v, PER_ROUND);
      const t = totals.get(n)!;
      t.wall += performance.now() - t0;
      t.cpu += cpuMsOf(pid) - cpu0;
      t.ops += confirms;
      if (v.teardown) await c.query(v.teardown);
    }
  }
  process.stdout.write(`\nDatabase CPU per confirm (one connection, ${ROUNDS} interleaved rounds of ${PER_ROUND}):\n`);
  for (const [n, t] of totals) {
    process.stdout.write(`  ${n.padEnd(12)} db CPU ${(t.cpu / t.ops).toFixed(3)} ms/op   wall ${(t.wall / t.ops).toFixed(3)} ms/op\n`);
  }
  await c.end();
  // A throw-away database (some variants altered its triggers): not left behind.
  await serverSql(ADMIN, `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
