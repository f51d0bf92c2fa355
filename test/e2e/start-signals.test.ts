/**
 * `npm start` as a process manager runs it (systemd, a container runtime, an IDE's stop button,
 * `timeout`): the signal goes to npm's pid alone, never to the whole process group. Every app must
 * stop all the same, and so must everything when npm itself is killed outright. Runs the README's
 * command on the dist/ built before the tests (see runStart's viaNpm).
 */
import { SERVICE_NAMES } from '@mm/contracts';
import { HEALTHY_WITHIN_MS, type StartedPlatform, canListen, descendants, isRunning, runStart, servicePid } from './supervision-support';

/** Waits until none of `pids` runs any more; the ones still running after `withinMs` (a bound for a hang, not a speed). */
async function survivors(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = pids.filter(isRunning);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Each app's pid, found by its command line under npm's process tree. */
function appPids(platform: StartedPlatform): number[] {
  const pids = SERVICE_NAMES.map((service) => servicePid(platform.start.pid!, service));
  expect(pids.every((pid) => pid !== undefined)).toBe(true);
  return pids as number[];
}

describe('npm start stops everything on a signal to npm alone', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
    it(
      `${signal} to npm's pid: every app and the supervisor are gone, every port is free`,
      async () => {
        const platform = await runStart(`npm_${signal.toLowerCase()}`, {}, { viaNpm: true });
        try {
          await platform.waitHealthy();
          const apps = appPids(platform);
          const tree = descendants(platform.start.pid!);

          process.kill(platform.start.pid!, signal);
          // SIGKILL: npm cannot forward it; the supervisor sees its parent gone and stops the apps.
          expect(await survivors([...tree, platform.start.pid!], 60_000)).toEqual([]);
          expect(apps.filter(isRunning)).toEqual([]);
          for (const service of SERVICE_NAMES) expect(await canListen(platform.portOf(service))).toBe(true);
          expect(await canListen(platform.portOf('orchestrator') + 100)).toBe(true);
          // The apps were stopped, not killed: the supervisor said so, and restarted none of them.
          expect(platform.output()).toMatch(/\[start\] +stopped/);
          expect(platform.output()).not.toMatch(/exited unexpectedly|restarted|did not stop within/);
        } finally {
          await platform.cleanUp();
        }
      },
      HEALTHY_WITHIN_MS + 90_000,
    );
  }

  it(
    'SIGKILL to npm whose pid stays taken (a zombie nobody reaps, like a reused pid): the supervisor still sees it is gone',
    async () => {
      const platform = await runStart('npm_zombie', {}, { npmParentNeverReaps: true });
      try {
        await platform.waitHealthy();
        const apps = appPids(platform);
        // the one child of the non-reaping parent is npm; everything else runs under npm
        const [npm, ...tree] = descendants(platform.start.pid!);

        process.kill(npm, 'SIGKILL');
        // npm's pid still answers signal 0 (a zombie); only the supervisor's new parent tells it is orphaned
        expect(await survivors(tree, 60_000)).toEqual([]);
        expect(apps.filter(isRunning)).toEqual([]);
        for (const service of SERVICE_NAMES) expect(await canListen(platform.portOf(service))).toBe(true);
        expect(platform.output()).toMatch(/is gone: stopping/);
        expect(platform.output()).toMatch(/\[start\] +stopped/);
      } finally {
        await platform.cleanUp();
      }
    },
    HEALTHY_WITHIN_MS + 90_000,
  );
});
