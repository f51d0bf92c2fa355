import { Logger, type LoggerService } from '@nestjs/common';
import { ALWAYS_LEADER, type JobLease } from './job-lease';
import { MAX_INTERVAL_MS, PeriodicJob } from './periodic-job';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `periodic job run` lines, by the fields the fault suite counts. */
const runLines: Array<{ level: string; job: string; slot: number; everyMs: number }> = [];
/** The `periodic job slot skipped` lines. */
const skipLines: Array<{ job: string; slot: number; reason: string }> = [];
const capture = (level: string) => (message: unknown, text?: unknown) => {
  if (text === 'periodic job run') runLines.push({ level, ...(message as { job: string; slot: number; everyMs: number }) });
  if (text === 'periodic job slot skipped') skipLines.push(message as { job: string; slot: number; reason: string });
};
const quiet: LoggerService = { log: capture('info'), debug: capture('debug'), error: () => undefined, warn: () => undefined };
Logger.overrideLogger(quiet);

describe('PeriodicJob', () => {
  beforeEach(() => {
    runLines.length = 0;
    skipLines.length = 0;
  });

  it('ticks, never runs twice at once, and runNow joins the run in progress', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const job = new PeriodicJob(
      'test.overlap',
      async () => {
        active++;
        most = Math.max(most, active);
        await sleep(30);
        active--;
        return ++runs;
      },
      fail,
    );
    job.start(5, ALWAYS_LEADER);
    await sleep(100);
    const [a, b] = [job.runNow(), job.runNow()];
    expect(a).toBe(b);
    await job.stop();
    expect(most).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(2);
    const after = runs;
    await sleep(40);
    expect(runs).toBe(after); // stopped: no more ticks
  });

  it('stop waits for the run in progress; a failed tick goes to onError and the next tick runs', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    let finished = false;
    const job = new PeriodicJob(
      'test.errors',
      async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
        await sleep(30);
        finished = true;
      },
      (e) => errors.push(e),
    );
    job.start(5, ALWAYS_LEADER);
    while (calls < 2) await sleep(2);
    await job.stop();
    expect(finished).toBe(true);
    expect(errors).toEqual([new Error('boom')]);
  });

  it('refuses an interval Node would turn into a 1 ms loop', async () => {
    const job = new PeriodicJob('test.huge', async () => 1, fail);
    expect(() => job.start(2 ** 31, ALWAYS_LEADER)).toThrow(/at most 2147483647/);
    await job.stop();
  });

  it('everyMs 0 leaves it off; runNow still runs it', async () => {
    let runs = 0;
    const job = new PeriodicJob('test.off', async () => ++runs, fail);
    job.start(0, ALWAYS_LEADER);
    await sleep(20);
    expect(runs).toBe(0);
    expect(await job.runNow()).toBe(1);
    await job.stop();
  });

  it('runs at wall-clock slot boundaries, each slot once, and logs each run with its slot', async () => {
    const everyMs = 40;
    const starts: number[] = [];
    const job = new PeriodicJob('test.slots', async () => void starts.push(Date.now()), fail);
    job.start(everyMs, ALWAYS_LEADER);
    await sleep(260);
    await job.stop();
    const slots = runLines.map((l) => l.slot);
    expect(slots.length).toBeGreaterThanOrEqual(3);
    expect(slots.length).toBe(starts.length);
    expect(new Set(slots).size).toBe(slots.length);
    // a run never starts before its slot's boundary (on a loaded machine it may start late)
    starts.forEach((t, i) => expect(t).toBeGreaterThanOrEqual(slots[i] * everyMs));
    expect(runLines.every((l) => l.job === 'test.slots' && l.everyMs === everyMs && l.level === 'debug')).toBe(true);
  });

  it('a slot whose boundary finds the previous run still going is skipped and says so; each slot is run or skipped', async () => {
    const everyMs = 40;
    // every run lasts two and a half periods: the boundaries inside it are skipped
    const job = new PeriodicJob('test.busy', () => sleep(100), fail);
    job.start(everyMs, ALWAYS_LEADER);
    await sleep(420);
    await job.stop();
    expect(runLines.length).toBeGreaterThanOrEqual(2);
    expect(skipLines.length).toBeGreaterThanOrEqual(2);
    // a loaded machine may also fire a timer past a whole period ('late'); the run in progress is what this case makes
    expect(skipLines.every((l) => l.job === 'test.busy' && ['busy', 'late'].includes(l.reason))).toBe(true);
    expect(skipLines.some((l) => l.reason === 'busy')).toBe(true);
    const ran = new Set(runLines.map((l) => l.slot));
    const skipped = skipLines.map((l) => l.slot);
    expect(skipped.some((slot) => ran.has(slot))).toBe(false);
    // no boundary goes unaccounted between the first run and the last one
    const all = [...ran, ...skipped].sort((a, b) => a - b);
    const first = Math.min(...ran);
    const last = Math.max(...ran);
    for (let slot = first; slot <= last; slot++) expect(all).toContain(slot);
  });

  it('a lease taken during a slot, even at its boundary, runs from the next boundary on; no lease, no run; stop gives it back', async () => {
    const everyMs = 40;
    const asked: string[] = [];
    /** the lease is free from this time on; the first ask after it takes it */
    let freeFrom = Infinity;
    let since: number | null = null;
    let released = 0;
    let counted = 0;
    const lease: JobLease = {
      hold: (job) => {
        asked.push(job);
        if (since === null && Date.now() >= freeFrom) since = Date.now();
        return Promise.resolve(since);
      },
      release: () => Promise.resolve(void released++),
      ran: () => void counted++,
    };
    const starts: number[] = [];
    const job = new PeriodicJob('test.lease', async () => void starts.push(Date.now()), fail);
    job.start(everyMs, lease);
    // A follower asks again and again (several times per slot); on a loaded machine timers fire
    // late, so wait for the asks rather than for a fixed time.
    for (const deadline = Date.now() + 5_000; asked.length <= 3 && Date.now() < deadline;) await sleep(everyMs);
    expect(asked.length).toBeGreaterThan(3);
    expect(starts).toEqual([]); // another replica leads
    expect(new Set(asked)).toEqual(new Set(['test.lease']));

    // freed 1 ms before a boundary: most likely taken by the ask at that boundary, which must not run it
    freeFrom = (Math.floor(Date.now() / everyMs) + 2) * everyMs - 1;
    await sleep(5 * everyMs);
    await job.stop();
    expect(since).not.toBeNull();
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(runLines[0].slot).toBe(Math.floor(since! / everyMs) + 1);
    expect(counted).toBe(starts.length);
    expect(released).toBe(1);
  });

  it('runSoon runs at once on the leader; a burst during a run costs one more run; off before start and after stop', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const job = new PeriodicJob(
      'test.wake',
      async () => {
        runs++;
        await new Promise<void>((r) => (release = r));
      },
      fail,
    );
    job.runSoon();
    await sleep(5);
    expect(runs).toBe(0); // not started: nothing
    job.start(MAX_INTERVAL_MS, ALWAYS_LEADER); // no boundary during the test
    await sleep(5); // the lease answered
    job.runSoon();
    await sleep(5);
    expect(runs).toBe(1);
    for (let i = 0; i < 10; i++) job.runSoon();
    release();
    await sleep(5);
    expect(runs).toBe(2); // the follow-up, started after the burst
    release();
    await sleep(5);
    expect(runs).toBe(2); // and no more
    await job.stop();
    job.runSoon();
    await sleep(5);
    expect(runs).toBe(2);
  });

  it('runSoon: a follower does nothing and does not ask; a new leader waits for its first boundary; a lost lease stops it', async () => {
    const everyMs = 400;
    let since: number | null = null;
    let asked = 0;
    const lease: JobLease = {
      hold: () => Promise.resolve(void asked++).then(() => since),
      release: () => Promise.resolve(),
      ran: () => undefined,
    };
    let runs = 0;
    const job = new PeriodicJob('test.wake-lease', async () => void runs++, fail);
    // started just after a boundary, so the checks below fall inside one slot
    while (Date.now() % everyMs > 10) await sleep(1);
    job.start(everyMs, lease);
    await sleep(5);
    const probes = asked;
    for (let i = 0; i < 20; i++) job.runSoon();
    await sleep(5);
    expect(runs).toBe(0);
    expect(asked).toBe(probes); // a follower's wake-ups cost no lease query

    // taken now, in the middle of a slot: not before that slot's end
    since = Date.now();
    while (asked === probes) await sleep(1); // its next probe learns it leads
    job.runSoon();
    await sleep(10);
    expect(runs).toBe(0);
    const boundary = (Math.floor(since / everyMs) + 1) * everyMs;
    while (Date.now() < boundary + 10) await sleep(2);
    const ticked = runs; // the boundary's own run
    job.runSoon();
    await sleep(10);
    expect(runs).toBe(ticked + 1);

    since = null; // lost: the confirmation before the run says so
    job.runSoon();
    await sleep(10);
    expect(runs).toBe(ticked + 1);
    await job.stop();
  });

  it('a daily job runs in the slot that starts at its time of day', async () => {
    const job = new PeriodicJob('test.daily', async () => 1, fail);
    const day = 86_400_000;
    // slots start at 02:00 UTC: started at 01:59:59.9 the boundary is 100 ms away
    const now = Date.now();
    const offsetMs = (now % day) + 100;
    job.start(day, ALWAYS_LEADER, { offsetMs });
    await sleep(250);
    await job.stop();
    expect(runLines).toEqual([{ level: 'info', job: 'test.daily', slot: Math.floor((now + 100 - offsetMs) / day), everyMs: day }]);
  });
});

function fail(error: unknown): never {
  throw error;
}
