import { randomUUID } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { Pool, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { describeError } from '@mm/errors';
import { TEST_ADMIN_URL } from '../../../test/support/infra';
import { DatabaseConfig } from './config';
import { type PoolExhaustion, explainPoolTimeouts } from './db-pool-logging';
import { PlatformModule } from './platform.module';
import { requestContext } from './request-context';

const inRequest = <T>(requestId: string, work: () => Promise<T>): Promise<T> =>
  requestContext.run({ requestId, correlationId: requestId }, work);

/** A checkout made by work outside any request (a periodic job, say): the report names where it came from. */
function backgroundCheckout(pool: Pool): Promise<PoolClient> {
  return pool.connect();
}

describe('pool checkout timeouts (real PostgreSQL)', () => {
  let pool: Pool;
  let checkedOut: PoolClient[] = [];
  const keep = (client: PoolClient): PoolClient => (checkedOut.push(client), client);
  afterEach(async () => {
    // Whatever an assertion left checked out, so that ending the pool does not wait for it.
    checkedOut.forEach((c) => c.release());
    checkedOut = [];
    await pool?.end();
  });

  it('name the pool as exhausted, with who holds its connections and for how long', async () => {
    pool = new Pool({ connectionString: TEST_ADMIN_URL, max: 2, connectionTimeoutMillis: 300 });
    explainPoolTimeouts(pool);
    keep(await inRequest('req-holder', () => pool.connect()));
    keep(await backgroundCheckout(pool));

    const error = (await inRequest('req-waiter', () => pool.query('SELECT 1')).catch((e: unknown) => e)) as Error & {
      pool: PoolExhaustion;
    };
    expect(error.message).toMatch(
      /^timeout exceeded when trying to connect: all 2 connections of this process's pool stayed checked out \(longest \d+ ms, by (request req-holder|\S+); 1 of 2 outside any request\), 0 more waiting$/,
    );
    const who = (h: PoolExhaustion['holders'][number]) => h.requestId ?? h.by?.[0]?.match(/\((libs\/\S+?\.ts):\d+:\d+\)$/)?.[1];
    expect({ ...error.pool, holders: error.pool.holders.map(who).sort() }).toEqual({
      exhausted: true,
      max: 2,
      inUse: 2,
      idle: 0,
      waiting: 0,
      holders: ['libs/platform/src/db-pool-logging.spec.ts', 'req-holder'],
    });
    // Still answered as a backing service that is unavailable for now: 503 with Retry-After.
    expect(describeError(error)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', unavailable: true });

    // Released connections are no longer counted as held, and the pool works again.
    checkedOut.splice(0).forEach((c) => c.release());
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    keep(await pool.connect());
    keep(await pool.connect());
    const third = (await pool.connect().catch((e: unknown) => e)) as Error & { pool: PoolExhaustion };
    expect(third.pool.holders).toHaveLength(2);
  });

  it('leave a connection failure as it is (the server unreachable is not the pool)', async () => {
    pool = new Pool({ connectionString: 'postgres://nobody@127.0.0.1:9/none', max: 1, connectionTimeoutMillis: 300 });
    explainPoolTimeouts(pool);
    const error = (await pool.query('SELECT 1').catch((e: unknown) => e)) as Error & { pool?: unknown };
    expect(error.pool).toBeUndefined();
    expect(error.message).not.toMatch(/pool/);
  });
});

describe("the platform's database pool", () => {
  it('explains its own checkout timeouts: work holding its only connection and asking for another', async () => {
    const config = Object.assign(new DatabaseConfig(), { DATABASE_URL: TEST_ADMIN_URL, DB_POOL_SIZE: 1 });
    const app = await Test.createTestingModule({
      imports: [PlatformModule.forRoot({ service: `pool-${randomUUID()}`, config, database: { schema: 'public' } })],
    }).compile();
    await app.init();
    try {
      const db = app.get(DataSource);
      // The shape of a periodic job that keeps a connection for a session lock while its work uses the pool.
      const runner = db.createQueryRunner();
      await runner.connect();
      try {
        const error = (await db.query('SELECT 1').catch((e: unknown) => e)) as Error & { pool?: PoolExhaustion };
        expect(error.message).toMatch(/^timeout exceeded when trying to connect: all 1 connections of this process's pool/);
        expect(error.pool).toMatchObject({ exhausted: true, max: 1, inUse: 1, holders: [{ heldMs: expect.any(Number) }] });
        // The holder is named by where it was checked out: this file, not pg nor TypeORM.
        expect(error.pool!.holders[0].by?.[0]).toMatch(/\(libs\/platform\/src\/db-pool-logging\.spec\.ts:\d+:\d+\)$/);
      } finally {
        await runner.release();
      }
    } finally {
      await app.close();
    }
  }, 20_000);
});
