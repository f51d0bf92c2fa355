/**
 * B2's server (bench/ledger/http-floor.ts): the least any Node.js HTTP service needs to confirm a
 * transfer with the ledger's own statement. One plain Fastify route answers the path and body W1
 * sends; it builds the call with the service's own code (TransferExecutor.plan, moneyLockKeys) and
 * sends the same prepared `CALL ledger.confirm_checked` on a pg pool, as the same database role.
 *
 * What it leaves out is everything the ledger adds on top: NestJS, the service-key guard, body
 * validation, the request context and its ids, the per-request log line and metric, Server-Timing,
 * idempotency, group commit, the outbox relay. W1 / B2 is what those cost. Not a server to deploy:
 * it trusts its body, and its only error handling is to replay a serialization failure.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { CONFIRM_CHECKED_CALL } from '../../apps/ledger-wallets/src/db/execute-confirm-call';
import { moneyLockKeys } from '../../apps/ledger-wallets/src/db/lock-keys';
import { TransferExecutor } from '../../apps/ledger-wallets/src/execution/transfer-executor.service';
import type { LedgerWalletsConfig } from '../../apps/ledger-wallets/src/ledger-wallets.config';
import type { TechnicalAccountsService } from '../../apps/ledger-wallets/src/wallets/technical-accounts.service';

interface ConfirmBody {
  actor: { id: string };
  executionContext: {
    sourceAccountId: string;
    destinationAccountId: string;
    amount: number;
    currency: string;
    metadata?: { typeCode?: string };
  };
}

/** What the service waits for a lock (LEDGER_LOCK_TIMEOUT_MS's default). */
const LOCK_TIMEOUT_MS = 3000;
const MAX_ATTEMPTS = 10;

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
  // The service credits a fee of 0 to FEE_COLLECTION too: its id is part of the same call.
  const fee = await pool.query<{ id: string }>(`SELECT id FROM ledger.accounts WHERE account_type = 'fee_collection' AND currency = 'XAF'`);
  const feeAccount = fee.rows[0].id;
  const executor = new TransferExecutor({ LEDGER_REFERENCE_PREFIX: 'MMP' } as LedgerWalletsConfig, {} as TechnicalAccountsService);
  let retries = 0;

  const app = Fastify({ logger: false });
  app.get('/stats', async () => ({ retries }));
  app.post<{ Params: { id: string }; Body: ConfirmBody }>('/v1/internal/intents/:id/transition', async (req, reply) => {
    const intentId = req.params.id;
    const ctx = req.body.executionContext;
    const source = ctx.sourceAccountId.toLowerCase();
    const destination = ctx.destinationAccountId.toLowerCase();
    const plan = executor.plan({
      intentId,
      resolved: { source, destination, amount: ctx.amount, fee: 0, feeAccount, commission: 0, commissionFrom: null, commissionTo: null },
      currency: ctx.currency,
      meta: { createdBy: null, typeCode: ctx.metadata?.typeCode ?? null, agentId: null, description: null },
      actor: req.body.actor,
      now: new Date(),
    });
    const keys = moneyLockKeys([source, destination], intentId).map(String);
    const client = await pool.connect();
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const r = await client.query({
            name: 'confirm',
            text: CONFIRM_CHECKED_CALL,
            values: [keys, keys, LOCK_TIMEOUT_MS, ...plan.args],
          });
          const outcome = r.rows[0] as { ok: boolean; refusal: string | null; intent: Record<string, unknown> };
          if (!outcome.ok) return reply.status(422).send({ code: outcome.refusal });
          return { ...outcome.intent, status: 'SUCCEEDED', ...plan.result };
        } catch (error) {
          const code = (error as { code?: string }).code;
          if ((code !== '40001' && code !== '40P01') || attempt >= MAX_ATTEMPTS) throw error;
          // The procedure rolled back; its session-level advisory locks are still held.
          await client.query('SELECT pg_advisory_unlock_all()');
          retries++;
        }
      }
    } finally {
      client.release();
    }
  });
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
  process.send?.('listening');
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
