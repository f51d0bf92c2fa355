import { PeriodicJob } from './periodic-job';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicJob', () => {
  it('ticks, never runs twice at once, and runNow joins the run in progress', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const job = new PeriodicJob(async () => {
      active++;
      most = Math.max(most, active);
      await sleep(30);
      active--;
      return ++runs;
    }, fail);
    job.start(5);
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
      async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
        await sleep(30);
        finished = true;
      },
      (e) => errors.push(e),
    );
    job.start(5);
    while (calls < 2) await sleep(2);
    await job.stop();
    expect(finished).toBe(true);
    expect(errors).toEqual([new Error('boom')]);
  });

  it('refuses an interval Node would turn into a 1 ms loop', async () => {
    const job = new PeriodicJob(async () => 1, fail);
    expect(() => job.start(2 ** 31)).toThrow(/at most 2147483647/);
    await job.stop();
  });

  it('everyMs 0 leaves it off; runNow still runs it', async () => {
    let runs = 0;
    const job = new PeriodicJob(async () => ++runs, fail);
    job.start(0);
    await sleep(20);
    expect(runs).toBe(0);
    expect(await job.runNow()).toBe(1);
    await job.stop();
  });
});

function fail(error: unknown): never {
  throw error;
}
