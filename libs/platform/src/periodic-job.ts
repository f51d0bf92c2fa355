/**
 * Background work run every `everyMs` by one process: relays, sweepers, clean-ups. Never two runs at
 * once — a tick that finds the previous run still going skips, and `runNow` (a test, an operator
 * route) joins the run in progress instead of starting a second one. The timer does not keep the
 * process alive, and `stop` (from the module's shutdown hook) waits for a run in progress, so a
 * shutdown never cuts one half way.
 */
/** setInterval's largest delay (2^31 − 1 ms, about 24.8 days). */
export const MAX_INTERVAL_MS = 2_147_483_647;

export class PeriodicJob<T, A = undefined> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;

  /**
   * `run` gets what `runNow` was given (nothing on a tick). `onError`: what a failed tick does with
   * its error (log it); the next tick runs as usual.
   */
  constructor(
    private readonly run: (arg?: A) => Promise<T>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Starts ticking; `everyMs` ≤ 0 leaves the job off (only `runNow` runs it). Above setInterval's
   * largest delay Node would tick every millisecond instead: refused, so a setting meant as "rarely"
   * cannot turn into a busy loop.
   */
  start(everyMs: number): void {
    if (everyMs > MAX_INTERVAL_MS) throw new Error(`a periodic job cannot run every ${everyMs} ms (at most ${MAX_INTERVAL_MS})`);
    if (everyMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.runNow().catch(this.onError);
    }, everyMs);
    this.timer.unref();
  }

  /** One run now, or the one in progress (whose argument stands). */
  runNow(arg?: A): Promise<T> {
    this.running ??= this.run(arg).finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
