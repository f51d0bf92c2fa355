import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authApp } from '../../apps/auth/src/auth.app';
import { orchestratorApp } from '../../apps/orchestrator/src/orchestrator.app';
import { partnersApp } from '../../apps/partners/src/partners.app';
import { type RunningApp, boot } from '../support/boot';
import { completePublicDocument } from '../support/public-document';
import { type TestDatabase, createTestDatabase, createTestRedis, serviceEnv } from '../support/test-env';

/**
 * The console calls `/api` through types generated from a snapshot of the public OpenAPI document
 * (apps/console/src/api). If the live document moves away from the snapshot, a screen may call a
 * route that changed without the type-check noticing: this test fails and says how to refresh.
 */
const root = join(__dirname, '../..');
const SNAPSHOT = join(root, 'apps/console/src/api/openapi.json');

describe('the console API snapshot', () => {
  let db: TestDatabase;
  const redis = createTestRedis();
  const apps: RunningApp[] = [];
  let gateway: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    const auth = await boot(authApp, serviceEnv('auth', db, redis), { listen: true });
    const partners = await boot(partnersApp as never, serviceEnv('partners', db, redis), { listen: true });
    apps.push(auth, partners);
    gateway = await boot(orchestratorApp, serviceEnv('orchestrator', db, redis, { AUTH_URL: auth.url, PARTNERS_URL: partners.url }), {
      listen: true,
    });
    apps.push(gateway);
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await db?.drop();
    await redis.flush();
  });

  it('is the document the gateway serves at /api/openapi.json', async () => {
    const live = await completePublicDocument<{ info: Record<string, unknown> }>(gateway.url);
    expect(live.info['x-unavailable-services']).toBeUndefined();
    const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8'));
    if (JSON.stringify(live) !== JSON.stringify(snapshot)) {
      const saved = join(tmpdir(), `console-openapi-${process.pid}.json`);
      writeFileSync(saved, JSON.stringify(live));
      throw new Error(
        `the public OpenAPI document differs from the console's snapshot (apps/console/src/api/openapi.json).\n` +
          `Refresh it and its types with: npm run console:api -- --from ${saved}\n` +
          `(or against a running platform: npm start, then npm run console:api), then fix what npm run typecheck reports in apps/console.`,
      );
    }
  });

  it('generated the committed types from the snapshot', () => {
    const run = spawnSync(process.execPath, ['apps/console/scripts/refresh-api.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
