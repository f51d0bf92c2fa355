import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { LedgerWalletsConfig } from '../src/ledger-wallets.config';
import { StatementReadPool } from '../src/statements/statement-read-pool';
import { TEST_ADMIN_URL } from '../../../test/support/infra';

/**
 * What PgBouncer does to a start-up parameter listed in `ignore_startup_parameters` (the deployment's
 * pooler had `statement_timeout` there): the connection is accepted and the parameter never reaches
 * PostgreSQL. This relay rewrites the client's start-up message the same way and passes every other
 * byte through untouched, so the pool meets the real server as it would behind the pooler.
 */
async function startupParameterDroppingRelay(target: URL, dropped: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    let pending = Buffer.alloc(0);
    const onFirst = (chunk: Buffer): void => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < 4 || pending.length < pending.readInt32BE(0)) return;
      client.off('data', onFirst);
      const length = pending.readInt32BE(0);
      upstream.write(withoutParameters(pending.subarray(0, length), dropped));
      upstream.write(pending.subarray(length));
      client.pipe(upstream);
    };
    client.on('data', onFirst);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A StartupMessage (length, protocol 3.0, name/value pairs, a final NUL) without the `dropped` names. */
function withoutParameters(message: Buffer, dropped: readonly string[]): Buffer {
  const fields = message
    .subarray(8, message.length - 1)
    .toString('utf8')
    .split('\0');
  const kept: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (!dropped.includes(fields[i])) kept.push(fields[i], fields[i + 1]);
  }
  const body = Buffer.from(`${kept.join('\0')}\0\0`, 'utf8');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(message.readInt32BE(4), 4);
  return Buffer.concat([head, body]);
}

function statementPool(databaseUrl: string): StatementReadPool {
  const config = { DATABASE_URL: databaseUrl, LEDGER_STATEMENT_POOL_SIZE: 2, LEDGER_STATEMENT_TIMEOUT_MS: 300 };
  return new StatementReadPool(config as LedgerWalletsConfig);
}

describe('StatementReadPool: LEDGER_STATEMENT_TIMEOUT_MS holds with or without a pooler in front of PostgreSQL', () => {
  let relay: Awaited<ReturnType<typeof startupParameterDroppingRelay>>;
  const pools: StatementReadPool[] = [];

  beforeAll(async () => {
    relay = await startupParameterDroppingRelay(new URL(TEST_ADMIN_URL), ['statement_timeout']);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.onModuleDestroy()));
    await relay?.close();
  });

  it.each([
    ['straight to PostgreSQL', () => TEST_ADMIN_URL],
    ['through a pooler that drops start-up parameters', () => relay.url],
  ])('%s: a read longer than the timeout is cancelled (SETTLEMENT_STATEMENT_TIMEOUT), and the pool serves the next one', async (_, url) => {
    const pool = statementPool(url());
    pools.push(pool);
    const outcome = await pool
      .run((c) => c.query('SELECT pg_sleep(3)'))
      .then(
        () => 'completed',
        (error: { code?: string }) => error.code,
      );
    const settings = await pool.run(
      async (c) =>
        (
          await c.query<{ timeout: string; name: string }>(
            `SELECT current_setting('statement_timeout') AS timeout, current_setting('application_name') AS name`,
          )
        ).rows[0],
    );
    expect({ outcome, settings }).toEqual({
      outcome: 'SETTLEMENT_STATEMENT_TIMEOUT',
      settings: { timeout: '300ms', name: 'ledger-wallets statements' },
    });
  });
});
