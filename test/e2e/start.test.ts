/**
 * `npm start` end to end: the built start command brings up all five apps (beside anything already
 * running: its own port base, database and Redis namespace), and SIGINT stops every process it
 * started. Needs `dist/` (the test command builds before Jest runs).
 */
import { existsSync } from 'node:fs';
import { SERVICE_NAMES } from '@mm/contracts';
import {
  HEALTHY_WITHIN_MS,
  START,
  type StartedPlatform,
  canListen,
  descendants,
  getJson,
  isRunning,
  runStart,
} from './supervision-support';

describe('npm start (dist/tools/start.js)', () => {
  let platform: StartedPlatform;

  beforeAll(async () => {
    expect(existsSync(START)).toBe(true);
    platform = await runStart('start');
  });
  afterAll(() => platform.cleanUp());

  it(
    'brings every service up: /api/health reports all five, each app answers /health',
    async () => {
      const health = await platform.waitHealthy();
      expect(health.status).toBe('ok');
      const info = health.info as Record<string, { status: string }>;
      for (const service of SERVICE_NAMES) expect(info[service]).toMatchObject({ status: 'up' });

      for (const service of SERVICE_NAMES) {
        const own = await getJson(`http://127.0.0.1:${platform.portOf(service)}/health`);
        expect(own).toMatchObject({ status: 200, body: { status: 'ok', info: { database: { status: 'up' }, redis: { status: 'up' } } } });
      }
      // Each app's lines carry its name as a prefix.
      const output = platform.output();
      for (const service of SERVICE_NAMES) expect(output).toMatch(new RegExp(`^\\[${service}\\] +\\{`, 'm'));
      expect(output).toContain('[start]');
    },
    HEALTHY_WITHIN_MS + 30_000,
  );

  it('SIGINT stops every app and leaves no process behind', async () => {
    const pidsBeforeStop = descendants(platform.start.pid!);
    // the five apps at least (their own children, if any, are counted too)
    expect(pidsBeforeStop.length).toBeGreaterThanOrEqual(SERVICE_NAMES.length);

    platform.start.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    // A bound for a stop that hangs (each app gets its shutdown deadline, then SIGKILL), not a speed.
    const result = await Promise.race([platform.exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 60_000)))]);
    clearTimeout(timer);
    expect(result).toEqual({ code: 0, signal: null });
    expect(pidsBeforeStop.filter(isRunning)).toEqual([]);
    expect(platform.output()).toMatch(/\[start\] +stopped/);
    // A clean stop is not a crash: nothing was restarted.
    expect(platform.output()).not.toMatch(/exited unexpectedly|restarted/);
    for (const service of SERVICE_NAMES) expect(await canListen(platform.portOf(service))).toBe(true);
  }, 70_000);
});
