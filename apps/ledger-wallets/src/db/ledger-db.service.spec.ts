import type { DataSource } from 'typeorm';
import { MetricsService } from '@mm/platform';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { LedgerDb } from './ledger-db.service';

/** A stand-in for TypeORM's query runner whose statements matching `failing` are refused. */
function runnerRefusing(failing?: RegExp) {
  const sent: string[] = [];
  const runner = {
    isReleased: false,
    connect: async () => undefined,
    query: async (sql: string) => {
      sent.push(sql);
      if (failing?.test(sql)) throw new Error(`refused: ${sql}`);
      return { records: [] };
    },
    release: jest.fn(async () => undefined),
    releasePostgresConnection: jest.fn(async (_error?: unknown) => undefined),
  };
  const db = new LedgerDb({ createQueryRunner: () => runner } as unknown as DataSource, new LedgerWalletsConfig(), new MetricsService());
  return { db, runner, sent };
}

describe('LedgerDb.withSession: a connection that may hold locks never goes back to the pool', () => {
  it('hands a clean connection back to the pool', async () => {
    const { db, runner } = runnerRefusing();
    await db.withSession((s) => s.unlock([1n, 2n], true));
    expect(runner.release).toHaveBeenCalledTimes(1);
    expect(runner.releasePostgresConnection).not.toHaveBeenCalled();
  });

  it('destroys it when a quiet release of locks failed earlier (the locks were forgotten, not released)', async () => {
    const { db, runner, sent } = runnerRefusing(/pg_advisory_unlock\(k\)/);
    await db.withSession((s) => s.unlock([1n, 2n], true));
    expect(sent.some((q) => q.includes('pg_advisory_unlock(k)'))).toBe(true);
    expect(runner.release).not.toHaveBeenCalled();
    expect(runner.releasePostgresConnection).toHaveBeenCalledTimes(1);
    expect(String(runner.releasePostgresConnection.mock.calls[0][0])).toContain('refused');
  });

  it('destroys it when its own cleanup fails (a ROLLBACK refused)', async () => {
    const { db, runner } = runnerRefusing(/^ROLLBACK$/);
    await db.withSession(async (s) => {
      s.inTransaction = true;
    });
    expect(runner.release).not.toHaveBeenCalled();
    expect(runner.releasePostgresConnection).toHaveBeenCalledTimes(1);
  });
});
