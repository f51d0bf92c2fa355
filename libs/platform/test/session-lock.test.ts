import { randomInt } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { withSessionLock, withSessionLockWaiting } from '@mm/platform';
import { TEST_ADMIN_URL } from '../../../test/support/infra';

/**
 * The app's pool here has ONE connection, the extreme of the self-deadlock: a lock kept on a
 * pooled connection leaves nothing for the work it guards. Each test takes a random key, so files
 * running beside it never share a lock; `admin` is another session, as another replica would be.
 */
const APP = 'session-lock-test';
/** pg-pool's error for a checkout that found no connection free in time */
const POOL_CHECKOUT_TIMEOUT = 'timeout exceeded when trying to connect';
let admin: Client;
const opened: DataSource[] = [];

async function onePool(extra: Record<string, unknown> = {}): Promise<DataSource> {
  const db = new DataSource({
    type: 'postgres',
    url: TEST_ADMIN_URL,
    logging: false,
    // a short checkout wait: the old pattern's failure shows in 1 s instead of the apps' 5 s
    extra: { max: 1, application_name: APP, connectionTimeoutMillis: 1_000, ...extra },
  });
  opened.push(db);
  return db.initialize();
}

const newKey = () => randomInt(1, 2 ** 47);

async function othersCanLock(key: number): Promise<boolean> {
  const { rows } = await admin.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1::bigint) AS locked`, [key]);
  if (rows[0].locked) await admin.query(`SELECT pg_advisory_unlock($1::bigint)`, [key]);
  return rows[0].locked;
}

/** The sessions holding or waiting for the key's lock. */
async function lockSessions(key: number): Promise<Array<{ granted: boolean }>> {
  const { rows } = await admin.query<{ granted: boolean }>(
    `SELECT granted FROM pg_locks
      WHERE locktype = 'advisory' AND objsubid = 1
        AND classid = (($1::bigint >> 32) & 4294967295)::oid AND objid = ($1::bigint & 4294967295)::oid
      ORDER BY granted`,
    [key],
  );
  return rows;
}

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

beforeAll(async () => {
  admin = new Client({ connectionString: TEST_ADMIN_URL });
  await admin.connect();
});

afterAll(async () => {
  for (const db of opened) if (db.isInitialized) await db.destroy();
  await admin.end();
});

describe('withSessionLock', () => {
  it('the old pattern, the lock kept on a pooled connection, leaves the work no connection of a 1-connection pool', async () => {
    const db = await onePool();
    const key = newKey();
    const runner = db.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SELECT pg_try_advisory_lock($1::bigint)`, [key]);
      await expect(db.query(`SELECT 1`)).rejects.toThrow(POOL_CHECKOUT_TIMEOUT);
      await runner.query(`SELECT pg_advisory_unlock($1::bigint)`, [key]);
    } finally {
      await runner.release();
    }
  });

  it('runs work that queries through a 1-connection pool, holding the lock against other sessions meanwhile, and frees it', async () => {
    const db = await onePool();
    const key = newKey();
    const seen: { rows?: unknown; othersCouldLock?: boolean; lockApp?: string } = {};
    const ran = await withSessionLock(db, '$1::bigint', [key], async () => {
      seen.rows = await db.query(`SELECT 41 + 1 AS answer`);
      seen.othersCouldLock = await othersCanLock(key);
      const { rows } = await admin.query<{ app: string }>(
        `SELECT a.application_name AS app FROM pg_locks l JOIN pg_stat_activity a USING (pid)
          WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
            AND l.classid = (($1::bigint >> 32) & 4294967295)::oid AND l.objid = ($1::bigint & 4294967295)::oid`,
        [key],
      );
      seen.lockApp = rows[0]?.app;
    });
    expect(ran).toBe(true);
    expect(seen).toEqual({ rows: [{ answer: 42 }], othersCouldLock: false, lockApp: `${APP} session lock` });
    expect(await othersCanLock(key)).toBe(true);
  });

  it('a second call with the same key while the first runs answers false without running its work', async () => {
    const db = await onePool();
    const key = newKey();
    const first = gate();
    const started = gate();
    const firstRun = withSessionLock(db, '$1::bigint', [key], async () => {
      started.open();
      await first.opened;
    });
    await started.opened;
    let secondRan = false;
    const second = await withSessionLock(db, '$1::bigint', [key], async () => {
      secondRan = true;
    });
    first.open();
    expect({ second, secondRan, first: await firstRun }).toEqual({ second: false, secondRan: false, first: true });
    expect(await othersCanLock(key)).toBe(true);
  });

  it('a lock taken elsewhere: false, the work not run', async () => {
    const db = await onePool();
    const key = newKey();
    await admin.query(`SELECT pg_advisory_lock($1::bigint)`, [key]);
    let ran = false;
    try {
      expect(await withSessionLock(db, '$1::bigint', [key], async () => void (ran = true))).toBe(false);
    } finally {
      await admin.query(`SELECT pg_advisory_unlock($1::bigint)`, [key]);
    }
    expect(ran).toBe(false);
  });

  it('work that throws: the error comes out, the lock is freed', async () => {
    const db = await onePool();
    const key = newKey();
    const failure = new Error('work failed');
    await expect(
      withSessionLock(db, '$1::bigint', [key], async () => {
        await db.query(`SELECT 1`);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await othersCanLock(key)).toBe(true);
  });

  it('the lock connection takes the pool options (here its statement_timeout ends a lock wait)', async () => {
    const db = await onePool({ statement_timeout: 300 });
    const key = newKey();
    await admin.query(`SELECT pg_advisory_lock($1::bigint)`, [key]);
    try {
      await expect(withSessionLockWaiting(db, '$1::bigint', [key], () => Promise.resolve('ran'))).rejects.toThrow(/statement timeout/);
    } finally {
      await admin.query(`SELECT pg_advisory_unlock($1::bigint)`, [key]);
    }
  });
});

describe('withSessionLockWaiting', () => {
  it('a waiter holds no pooled connection: the holder, then the waiter, each query through a 1-connection pool', async () => {
    const db = await onePool();
    const key = newKey();
    const order: string[] = [];
    const holding = gate();
    const release = gate();
    const first = withSessionLockWaiting(db, '$1::bigint', [key], async () => {
      holding.open();
      await release.opened;
      const [{ n }] = (await db.query(`SELECT 1 AS n`)) as Array<{ n: number }>;
      order.push(`first ${n}`);
      return 'first';
    });
    await holding.opened;
    const second = withSessionLockWaiting(db, '$1::bigint', [key], async () => {
      const [{ n }] = (await db.query(`SELECT 2 AS n`)) as Array<{ n: number }>;
      order.push(`second ${n}`);
      return 'second';
    });
    // the second call waits for the lock on its own connection, the pool's one stays free
    while ((await lockSessions(key)).length < 2) await new Promise((r) => setTimeout(r, 20));
    expect(await lockSessions(key)).toEqual([{ granted: false }, { granted: true }]);
    await expect(db.query(`SELECT 1 AS n`)).resolves.toEqual([{ n: 1 }]);
    release.open();
    expect(await Promise.all([first, second])).toEqual(['first', 'second']);
    expect(order).toEqual(['first 1', 'second 2']);
    expect(await othersCanLock(key)).toBe(true);
  });

  it('work that throws: the error comes out, the lock is freed', async () => {
    const db = await onePool();
    const key = newKey();
    await expect(withSessionLockWaiting(db, '$1::bigint', [key], () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await othersCanLock(key)).toBe(true);
  });
});
