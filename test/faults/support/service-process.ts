/**
 * One platform service run as a child process from the build (dist/), the way `npm start` runs it,
 * so that a test can `kill -9` it and start it again on the same port, database and Redis.
 * MM_TEST_DIST points at another build (default: the repository's dist/).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ServiceName } from '@mm/contracts';

export const DIST = process.env.MM_TEST_DIST ?? join(__dirname, '..', '..', '..', 'dist');

export class ServiceProcess {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private logTail: string[] = [];
  private readonly watchers: { marker: string; onLine: (line: string) => void }[] = [];
  /** how many times this service was killed with SIGKILL */
  kills = 0;

  constructor(
    readonly service: ServiceName,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last lines the service printed (JSON logs), for assertions and diagnosis. */
  logs(): string[] {
    return this.logTail;
  }

  /**
   * Hands every whole stdout line containing `marker` to `onLine`, in this run and every later start:
   * for counts over a whole case, which the bounded log tail cannot give.
   */
  watch(marker: string, onLine: (line: string) => void): void {
    this.watchers.push({ marker, onLine });
  }

  /** Waits for `/health`; the bound is generous because a 2-core machine running other tests boots slowly. */
  async start(timeoutMs = 60_000): Promise<void> {
    const entry = join(DIST, 'apps', this.service, 'src', 'main.js');
    if (!existsSync(entry)) throw new Error(`${entry} is missing: build first (node scripts/build.mjs)`);
    const child = spawn(process.execPath, [entry], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(this.port),
        LOG_LEVEL: 'warn',
        LOG_PRETTY: 'false',
        ...this.env,
      },
    });
    const keep = (chunk: Buffer) => {
      this.logTail.push(...chunk.toString().split('\n').filter(Boolean));
      if (this.logTail.length > 2_000) this.logTail = this.logTail.slice(-1_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // Line by line (a chunk may end mid-line), and only when someone watches.
    if (this.watchers.length > 0)
      createInterface({ input: child.stdout! }).on('line', (line) => {
        for (const w of this.watchers) if (line.includes(w.marker)) w.onLine(line);
      });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${this.service} exited during start:\n${this.logTail.slice(-30).join('\n')}`);
      try {
        if ((await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2_000) })).ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`${this.service} not healthy within ${timeoutMs} ms:\n${this.logTail.slice(-30).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** `kill -9`: no shutdown hook runs, in-flight requests and transactions are cut. */
  async kill9(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.kills += 1;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /**
   * The crash the kill cases inject: `kill -9`, half a second down (clients retrying meanwhile find
   * nothing listening), then a start on the same port, database and Redis.
   */
  async crashAndRestart(downMs = 500, startTimeoutMs?: number): Promise<void> {
    await this.kill9();
    await new Promise((r) => setTimeout(r, downMs));
    await this.start(startTimeoutMs);
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}
