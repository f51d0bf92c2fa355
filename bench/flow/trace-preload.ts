/**
 * Loaded with `node -r` into each service that `bench:flow` starts when FLOW_TRACE_DIR is set
 * (FLOW_COUNT=1 or FLOW_PROFILE=1): counts what one process does while a window is open, so the
 * benchmark can say how many HTTP round trips, SQL statements and Redis round trips one public
 * transfer costs, and how long the process waited on each; with FLOW_TRACE_PROFILE=1 it also takes
 * a V8 CPU profile of exactly that window (same format as `node --cpu-prof`).
 *
 * Driven by the benchmark through a command file and SIGUSR2 (free in Node; SIGUSR1 is the
 * inspector's): `<dir>/<name>.cmd` holds `open` (reset the counters, start the profiler) or
 * `close` (stop, write `<name>.trace.json` and `<name>.cpuprofile`). Bench tooling only: nothing
 * under apps/ or libs/ knows about it.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector';
import { join } from 'node:path';

export interface Tally {
  n: number;
  ms: number;
}

/** What `<name>.trace.json` holds; bench/flow/run.ts reads it with this same type. */
export interface Trace {
  inbound: Record<string, Tally>;
  outbound: Record<string, Tally>;
  sql: Record<string, Tally>;
  /** with FLOW_TRACE_PG_CPU=1: CPU ms the database backend spent on each statement (its /proc ticks) */
  sqlBackendCpu: Record<string, number>;
  poolConnect: Tally;
  redis: Record<string, number>;
  redisRoundTrips: Tally;
}

const dir = process.env.FLOW_TRACE_DIR;
const name = process.env.FLOW_TRACE_NAME ?? String(process.pid);
const profile = process.env.FLOW_TRACE_PROFILE === '1';
const pgCpu = process.env.FLOW_TRACE_PG_CPU === '1';

/**
 * CPU ms of a database backend so far (/proc, 10 ms ticks). Read before and after each statement
 * on the backend serving it: one statement's reading is coarse, the sum over thousands is not
 * (ticks land in proportion to the time spent).
 */
function backendCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const empty = (): Trace => ({
  inbound: {},
  outbound: {},
  sql: {},
  sqlBackendCpu: {},
  poolConnect: { n: 0, ms: 0 },
  redis: {},
  redisRoundTrips: { n: 0, ms: 0 },
});
let trace = empty();

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const routeKey = (method: string, url: string) => `${method} ${url.split('?')[0].replace(UUID, ':id')}`;
const sqlKeys = new Map<string, string>();
/** Statement text with literals folded (the ledger inlines lock keys), cached: most texts are parameterised constants. */
function sqlKey(text: string): string {
  let key = sqlKeys.get(text);
  if (key === undefined) {
    key = text
      .replace(/'(?:[^']|'')*'/g, "'…'")
      .replace(/-?\b\d+\b/g, 'N')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 90);
    if (sqlKeys.size < 5_000) sqlKeys.set(text, key);
  }
  return key;
}

function add(map: Record<string, Tally>, key: string, ms: number): void {
  const t = (map[key] ??= { n: 0, ms: 0 });
  t.n++;
  t.ms += ms;
}

function instrument(): void {
  // Inbound requests, timed to the end of the response.
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      const t0 = performance.now();
      const key = routeKey(req.method ?? '?', req.url ?? '');
      res.once('finish', () => add(trace.inbound, key, performance.now() - t0));
    }
    return (emit as (this: http.Server, event: string, ...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;

  // Outbound calls to the other services: InternalHttpClient sends through an undici dispatcher
  // (`request()`); a few other callers (the JWKS fetch, /hz health) still use the global fetch.
  const outbound = (method: string | undefined, url: URL) => `${method ?? 'GET'} :${url.port}${url.pathname.replace(UUID, ':id')}`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const undici = require('undici') as typeof import('undici');
  const dispatcherRequest = undici.Dispatcher.prototype.request as (
    this: unknown,
    opts: { origin?: unknown; path: string; method: string },
  ) => unknown;
  undici.Dispatcher.prototype.request = function (
    this: unknown,
    opts: { origin?: unknown; path: string; method: string },
    ...rest: unknown[]
  ) {
    const key = outbound(opts.method, new URL(opts.path, String(opts.origin)));
    const t0 = performance.now();
    const out = (dispatcherRequest as (...a: unknown[]) => unknown).call(this, opts, ...rest);
    // Time to the headers (the body is read by the caller), which is the callee's work.
    if (out && typeof (out as Promise<unknown>).then === 'function') {
      const done = () => add(trace.outbound, key, performance.now() - t0);
      (out as Promise<unknown>).then(done, done);
    }
    return out;
  } as typeof undici.Dispatcher.prototype.request;
  const fetch0 = globalThis.fetch;
  globalThis.fetch = async function (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) {
    const key = outbound(init?.method, new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url));
    const t0 = performance.now();
    try {
      return await fetch0(input, init);
    } finally {
      add(trace.outbound, key, performance.now() - t0);
    }
  } as typeof fetch;

  // SQL statements (TypeORM calls pg's Client#query with a callback) and waits for a pooled connection.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as typeof import('pg');
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const key = sqlKey(typeof first === 'string' ? first : (first?.text ?? '?'));
    const t0 = performance.now();
    const pid = pgCpu ? (this as { processID?: number }).processID : undefined;
    const cpu0 = backendCpuMs(pid);
    const done = () => {
      add(trace.sql, key, performance.now() - t0);
      const cpu1 = cpu0 === undefined ? undefined : backendCpuMs(pid);
      if (cpu0 !== undefined && cpu1 !== undefined) trace.sqlBackendCpu[key] = (trace.sqlBackendCpu[key] ?? 0) + cpu1 - cpu0;
    };
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const cb = args[last] as (...r: unknown[]) => void;
      args[last] = (...r: unknown[]) => {
        done();
        cb(...r);
      };
      return query.apply(this, args);
    }
    const out = query.apply(this, args);
    if (out && typeof (out as Promise<unknown>).then === 'function') (out as Promise<unknown>).then(done, done);
    return out;
  } as typeof pg.Client.prototype.query;
  const connect = pg.Pool.prototype.connect as (...a: unknown[]) => unknown;
  pg.Pool.prototype.connect = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const done = () => {
      trace.poolConnect.n++;
      trace.poolConnect.ms += performance.now() - t0;
    };
    if (typeof args[0] === 'function') {
      const cb = args[0] as (...r: unknown[]) => void;
      return connect.call(this, (...r: unknown[]) => {
        done();
        cb(...r);
      });
    }
    const out = connect.apply(this, args) as Promise<unknown>;
    out.then(done, done);
    return out;
  } as typeof pg.Pool.prototype.connect;

  // Redis: commands by name; a round trip is a command sent on its own or the EXEC closing a MULTI.
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ioredis = require('ioredis') as { default: { prototype: Record<string, unknown> } };
    const send = ioredis.default.prototype.sendCommand as (...a: unknown[]) => Promise<unknown>;
    ioredis.default.prototype.sendCommand = function (
      this: unknown,
      command: { name: string; promise: Promise<unknown> },
      ...rest: unknown[]
    ) {
      trace.redis[command.name] = (trace.redis[command.name] ?? 0) + 1;
      const out = send.call(this, command, ...rest);
      if (!rest[0] || command.name === 'exec') {
        const t0 = performance.now();
        const done = () => {
          trace.redisRoundTrips.n++;
          trace.redisRoundTrips.ms += performance.now() - t0;
        };
        command.promise.then(done, done);
      }
      return out;
    };
  } catch {
    /* a service without Redis */
  }
}

let session: Session | undefined;

function post(method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
}

async function command(cmd: string): Promise<void> {
  if (cmd === 'open') {
    trace = empty();
    if (profile) {
      session ??= new Session();
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 500 });
      await post('Profiler.start');
    }
    writeDone(join(dir!, `${name}.opened`), '');
    return;
  }
  if (cmd === 'close') {
    const snapshot = trace;
    if (profile && session) {
      const { profile: p } = (await post('Profiler.stop')) as { profile: unknown };
      session.disconnect();
      writeDone(join(dir!, `${name}.cpuprofile`), JSON.stringify(p));
    }
    writeDone(join(dir!, `${name}.trace.json`), JSON.stringify(snapshot));
  }
}

/** Written under a temporary name and renamed: the benchmark never reads half a file. */
function writeDone(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

if (dir) {
  instrument();
  process.on('SIGUSR2', () => {
    let cmd: string;
    try {
      cmd = readFileSync(join(dir, `${name}.cmd`), 'utf8').trim();
    } catch {
      return;
    }
    command(cmd).catch((error: unknown) => process.stderr.write(`[flow-trace ${name}] ${String(error)}\n`));
  });
}
