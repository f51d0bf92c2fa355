import { msUntilNextDailyRun } from './daily-schedule';

describe('daily schedule', () => {
  it('waits until today at HH:MM UTC when it is still ahead', () => {
    expect(msUntilNextDailyRun('02:00', new Date('2026-11-22T01:30:00Z'))).toBe(30 * 60_000);
  });
  it('rolls over to tomorrow once the time has passed (or is now)', () => {
    expect(msUntilNextDailyRun('02:00', new Date('2026-11-22T02:00:00Z'))).toBe(24 * 3_600_000);
    expect(msUntilNextDailyRun('02:00', new Date('2026-11-22T23:00:00Z'))).toBe(3 * 3_600_000);
  });
});
