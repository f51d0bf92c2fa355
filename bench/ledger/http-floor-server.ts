/**
 * B2's server (bench/ledger/http-floor.ts): the least any Node.js HTTP service needs to confirm a
 * transfer with the ledger's own statement. One plain Fastify route answers the path and body W1
 * sends; it builds the call with the service's own code (TransferExecutor.plan, moneyLockKeys) and
 * sends the same prepared `CALL ledger.confirm_checked` on a pg pool, as the same database role.
 *
 * What it leaves out is everything the ledger adds on top: NestJS, the service-key guard, body
 * validation, the request context and its ids (the event's correlation id is null here), the
 * per-request log line and metric, Server-Timing, idempotency, group commit, the outbox relay.
 * W1 / B2 is what those cost. Not a server to deploy: it trusts its body, and its only error
 * handling is to replay a serialization failure, a deadlock or a lock timeout.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { CONFIRM_CHECKED_CALL, confirmCallLiteral } from '../../apps/ledger-wallets/src/db/execute-confirm-call';
import { RETRYABLE_SQLSTATES, sqlState } from '../../apps/ledger-wallets/src/db/sql-errors';
import { moneyLockKeys } from '../../apps/ledger-wallets/src/db/lock-keys';
import { TransferExecutor } from '../../apps/ledger-wallets/src/execution/transfer-executor.service';
import { LedgerWalletsConfig } from '../../apps/ledger-wallets/src/ledger-wallets.config';
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

const MAX_ATTEMPTS = 10;

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
  // The ledger's own defaults (reference prefix, lock timeout), as the bench runs the service.
  const config = new LedgerWalletsConfig();
  const executor = new TransferExecutor(config, {} as TechnicalAccountsService);
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
      // W1's confirms carry no fee: the fee account is then neither sent, locked nor written.
      resolved: {
        source,
        destination,
        amount: ctx.amount,
        fee: 0,
        feeAccount: destination,
        commission: 0,
        commissionFrom: null,
        commissionTo: null,
      },
      currency: ctx.currency,
      meta: { createdBy: null, typeCode: ctx.metadata?.typeCode ?? null, agentId: null, description: null },
      actor: req.body.actor,
      now: new Date(),
    });
    const keys = moneyLockKeys([source, destination], intentId).map(String);
    const client = await pool.connect();
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await client.query({
          name: 'confirm',
          text: CONFIRM_CHECKED_CALL,
          values: [keys, keys, config.LEDGER_LOCK_TIMEOUT_MS, confirmCallLiteral(plan.call)],
        });
        client.release();
        const outcome = r.rows[0] as { ok: boolean; refusal: string | null; intent: Record<string, unknown>; completed_at: string };
        if (!outcome.ok) return reply.status(422).send({ code: outcome.refusal });
        return { ...outcome.intent, status: 'SUCCEEDED', ...plan.result, completedAt: outcome.completed_at };
      } catch (error) {
        // The procedure rolled back, but its session-level advisory locks may still be held: they
        // are released before a replay; otherwise the connection is closed rather than handed back
        // to the pool with them.
        const replay =
          RETRYABLE_SQLSTATES.has(sqlState(error) ?? '') &&
          attempt < MAX_ATTEMPTS &&
          (await client.query('SELECT pg_advisory_unlock_all()').then(
            () => true,
            () => false,
          ));
        if (!replay) {
          client.release(error as Error);
          throw error;
        }
        retries++;
      }
    }
  });
  // Port 0: the system picks a free one, sent back to the bench, so two runs never clash.
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  // The bench gone (even killed), this server goes too rather than keep its pool open.
  process.on('disconnect', () => process.exit(0));
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
