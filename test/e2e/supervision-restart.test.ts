/**
 * Supervision under `npm start`: `kill -9` of one service is followed by its restart (after the
 * logged backoff) while the others keep running, `/api/health` reports it down meanwhile and healthy
 * again afterwards; too many crashes in the window give up and stop everything. Needs the build.
 */
import { existsSync } from 'node:fs';
import { SERVICE_NAMES } from '@mm/contracts';
import { START, type StartedPlatform, descendants, getJson, isRunning, runStart, servicePid } from './supervision-support';

// Long enough that the health read made during it ends inside it on a loaded machine (at 1.5 s a CI
// run's read took 2.2 s).
const BACKOFF_MS = 4_000;

describe('npm start supervises the apps', () => {
  let platform: StartedPlatform;

  beforeAll(async () => {
    expect(existsSync(START)).toBe(true);
    // Two crashes within two minutes give up (defaults: five within one minute), first wait BACKOFF_MS.
    platform = await runStart('supervision', {
      MM_RESTART_BACKOFF_MS: String(BACKOFF_MS),
      MM_RESTART_MAX_CRASHES: '2',
      MM_RESTART_WINDOW_SEC: '120',
    });
  });
  afterAll(() => platform.cleanUp());

  it('restarts a service killed with SIGKILL; /api/health shows it down meanwhile, then healthy again', async () => {
    await platform.waitHealthy();
    const start = platform.start.pid!;
    const killed = servicePid(start, 'ledger-wallets');
    expect(killed).toBeDefined();
    const others = SERVICE_NAMES.filter((s) => s !== 'ledger-wallets').map((s) => servicePid(start, s));

    process.kill(killed!, 'SIGKILL');
    const killedAt = Date.now();
    // During the backoff: the gateway answers, and reports the ledger (only) as down.
    const during = await getJson(`http://127.0.0.1:${platform.base}/api/health`);
    expect(Date.now() - killedAt).toBeLessThan(BACKOFF_MS);
    expect(during?.status).toBe(503);
    expect(during?.body.error).toEqual({ 'ledger-wallets': expect.objectContaining({ status: 'down' }) });

    const health = await platform.waitHealthy(30_000);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(BACKOFF_MS);
    const info = health.info as Record<string, { status: string }>;
    for (const service of SERVICE_NAMES) expect(info[service]).toMatchObject({ status: 'up' });

    const restarted = servicePid(start, 'ledger-wallets');
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(killed);
    // Nobody else was touched.
    expect(SERVICE_NAMES.filter((s) => s !== 'ledger-wallets').map((s) => servicePid(start, s))).toEqual(others);
    const out = platform.output();
    expect(out).toMatch(
      new RegExp(
        `\\[start\\] +✖ ledger-wallets exited unexpectedly \\(signal SIGKILL\\): restarting in ${(BACKOFF_MS / 1000).toFixed(1).replace('.', '\\.')} s \\(crash 1 of 2 allowed within 120 s\\)`,
      ),
    );
    expect(out).toMatch(/\[start\] +↻ ledger-wallets restarted \(pid \d+\)/);
    expect(out).not.toMatch(/stopping the (other services|platform)/);
  }, 90_000);

  it('gives up after the allowed crashes within the window: stops every app and exits 1', async () => {
    const start = platform.start.pid!;
    await waitFor(() => platform.output().includes('ledger-wallets is back'));
    const tree = descendants(start);
    process.kill(servicePid(start, 'ledger-wallets')!, 'SIGKILL');

    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([platform.exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), 30_000)))]);
    clearTimeout(timer);
    expect(result).toEqual({ code: 1, signal: null });
    expect(platform.output()).toMatch(
      /✖ ledger-wallets exited unexpectedly \(signal SIGKILL\): 2 crashes within 120 s, giving up: stopping the platform/,
    );
    expect(tree.filter(isRunning)).toEqual([]);
  }, 45_000);
});

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
