/** The numbers of `npm start`'s supervisor (tools/infra.ts RestartPolicy), without starting anything. */
import { DEFAULT_RESTART_LIMITS, InfraError, RestartPolicy, restartLimitsFromEnv } from '../../tools/infra';

describe('restart policy of npm start', () => {
  it('defaults: waits 1, 2, 4, 8 s for crashes inside one minute and gives up at the fifth', () => {
    const policy = new RestartPolicy();
    const t0 = 1_000_000;
    const decisions = [0, 3_000, 8_000, 15_000, 30_000].map((dt) => policy.onCrash(t0 + dt));
    expect(decisions).toEqual([
      { action: 'restart', delayMs: 1_000, crashes: 1 },
      { action: 'restart', delayMs: 2_000, crashes: 2 },
      { action: 'restart', delayMs: 4_000, crashes: 3 },
      { action: 'restart', delayMs: 8_000, crashes: 4 },
      { action: 'give-up', crashes: 5 },
    ]);
    expect(DEFAULT_RESTART_LIMITS).toEqual({ maxCrashes: 5, windowMs: 60_000, baseDelayMs: 1_000, maxDelayMs: 30_000 });
  });

  it('forgets crashes older than the window: an occasional crash is always restarted after the shortest wait', () => {
    const policy = new RestartPolicy();
    for (let i = 0; i < 20; i++) expect(policy.onCrash(i * 61_000)).toEqual({ action: 'restart', delayMs: 1_000, crashes: 1 });
  });

  it('caps the wait at 30 s', () => {
    const policy = new RestartPolicy({ maxCrashes: 100, windowMs: 3_600_000, baseDelayMs: 1_000, maxDelayMs: 30_000 });
    const delays = Array.from({ length: 8 }, (_, i) => policy.onCrash(i));
    expect(delays.map((d) => (d.action === 'restart' ? d.delayMs : -1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('reads MM_RESTART_* and refuses nonsense with a message naming the variable', () => {
    expect(restartLimitsFromEnv({ MM_RESTART_MAX_CRASHES: '3', MM_RESTART_WINDOW_SEC: '10', MM_RESTART_BACKOFF_MS: '200' })).toEqual({
      maxCrashes: 3,
      windowMs: 10_000,
      baseDelayMs: 200,
      maxDelayMs: 30_000,
    });
    expect(restartLimitsFromEnv({})).toEqual(DEFAULT_RESTART_LIMITS);
    expect(() => restartLimitsFromEnv({ MM_RESTART_MAX_CRASHES: '0' })).toThrow(InfraError);
    expect(() => restartLimitsFromEnv({ MM_RESTART_WINDOW_SEC: 'soon' })).toThrow(/MM_RESTART_WINDOW_SEC/);
  });
});
