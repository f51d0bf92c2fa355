import { randomBytes, randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ConfigValidationError, DatabaseConfig, PlatformModule, loadConfig } from '@mm/platform';
import { TEST_ADMIN_URL } from '../../../test/support/infra';

/**
 * The app's pool keeps its connections open between bursts for DB_POOL_IDLE_MS (five minutes unless
 * set), where pg-pool alone closes them after 10 s: a reopened connection is a new backend, and every
 * prepared statement is planned again on it.
 */
async function appWith(env: Record<string, string>): Promise<TestingModule> {
  const config = loadConfig(DatabaseConfig, {
    INTERNAL_SERVICE_KEY: randomBytes(24).toString('hex'),
    DATABASE_URL: TEST_ADMIN_URL,
    DB_POOL_SIZE: '3',
    ...env,
  });
  const app = await Test.createTestingModule({
    imports: [PlatformModule.forRoot({ service: `pool-${randomUUID()}`, config, database: { schema: 'public' } })],
  }).compile();
  return app.init();
}

function poolOf(app: TestingModule): Pool {
  return (app.get(DataSource).driver as PostgresDriver).master as Pool;
}

describe('the database pool between bursts', () => {
  const apps: TestingModule[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  /** Closed after the test even when the other app of a pair failed to start. */
  const kept = (app: TestingModule): TestingModule => {
    apps.push(app);
    return app;
  };

  it('keeps its connections DB_POOL_IDLE_MS after the last use, and closes them after it', async () => {
    const [warm, short] = await Promise.all([appWith({}), appWith({ DB_POOL_IDLE_MS: '1000' })].map((started) => started.then(kept)));
    expect(poolOf(warm).options.idleTimeoutMillis).toBe(300_000);
    expect(poolOf(short).options.idleTimeoutMillis).toBe(1_000);
    // A burst of three at once opens three connections in each pool.
    const burst = (app: TestingModule) => Promise.all([1, 2, 3].map(() => app.get(DataSource).query('SELECT pg_sleep(0.05)')));
    await Promise.all([burst(warm), burst(short)]);
    expect(poolOf(warm).totalCount).toBe(3);
    expect(poolOf(short).totalCount).toBe(3);

    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect(poolOf(short).totalCount).toBe(0);
    expect(poolOf(warm).totalCount).toBe(3);
    expect(poolOf(warm).idleCount).toBe(3);
  });

  it.each(['999', '3600001', 'soon'])('refuses DB_POOL_IDLE_MS=%s at boot, naming it', (value) => {
    const env = { INTERNAL_SERVICE_KEY: randomBytes(24).toString('hex'), DATABASE_URL: TEST_ADMIN_URL, DB_POOL_IDLE_MS: value };
    expect(() => loadConfig(DatabaseConfig, env)).toThrow(ConfigValidationError);
    expect(() => loadConfig(DatabaseConfig, env)).toThrow(/DB_POOL_IDLE_MS/);
  });
});
