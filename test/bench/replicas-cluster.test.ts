import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformFileSync } from '@swc/core';
import { Agent, request } from 'undici';
import { childPids, perOperation, spentBetween, type Reading } from '../../bench/replicas/process-meter';

/**
 * bench:replicas measures the orchestrator as a cluster (bench/replicas/orchestrator-cluster.ts):
 * its ratio means something only if the cluster really runs N workers on the shared ports, says
 * it is ready only once every worker listens on both, spreads connections over them, and is gone,
 * workers included, when stopped. A stand-in service with two listeners answers with its pid.
 */

const ROOT = join(__dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

describe('bench:replicas cluster launcher', () => {
  let dir: string;
  let primary: ChildProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mm-replicas-cluster-'));
    // Listens on PORT, then (after a pause, as a real app opens its second listener later) on INTERNAL_PORT.
    writeFileSync(
      join(dir, 'service.cjs'),
      `const http = require('node:http');
       const answer = (_q, s) => s.end(String(process.pid));
       http.createServer(answer).listen(Number(process.env.PORT), '127.0.0.1', () =>
         setTimeout(() => http.createServer(answer).listen(Number(process.env.INTERNAL_PORT), '127.0.0.1'), 300));
       process.on('SIGTERM', () => process.exit(0));`,
    );
  });

  afterEach(() => {
    if (primary?.pid && primary.exitCode === null) primary.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (replicas: number, port: number, internal: number) => {
    // Compiled here rather than run through a require hook, which every worker would load again (seconds).
    const { code } = transformFileSync(join(ROOT, 'bench/replicas/orchestrator-cluster.ts'), {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    writeFileSync(join(dir, 'cluster.cjs'), code);
    primary = spawn(process.execPath, [join(dir, 'cluster.cjs')], {
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        INTERNAL_PORT: String(internal),
        BENCH_CLUSTER_MAIN: join(dir, 'service.cjs'),
        BENCH_CLUSTER_REPLICAS: String(replicas),
        BENCH_CLUSTER_READY_FILE: join(dir, 'ready'),
        BENCH_CLUSTER_LISTENERS: '2',
      },
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return primary;
  };

  it('runs two workers on shared ports, says ready once both listen on both, spreads connections, and dies whole when a worker dies', async () => {
    const [port, internal] = [await freePort(), await freePort()];
    const p = start(2, port, internal);
    expect(await until(() => existsSync(join(dir, 'ready')), 20_000)).toBe(true);
    const workers = childPids(p.pid as number);
    expect(workers).toHaveLength(2);

    // Eight separate connections (one per agent) to each port: round robin hands them to both workers.
    for (const target of [port, internal]) {
      const seen = new Set<number>();
      for (let i = 0; i < 8; i++) {
        const agent = new Agent({ connections: 1 });
        const res = await request(`http://127.0.0.1:${target}/`, { dispatcher: agent });
        seen.add(Number(await res.body.text()));
        await agent.close();
      }
      expect([...seen].sort()).toEqual([...workers].sort());
    }

    // A cluster one short must never be measured: the primary stops the other worker and exits 1.
    const code = new Promise<number | null>((resolve) => p.once('exit', (c) => resolve(c)));
    process.kill(workers[0], 'SIGKILL');
    expect(await code).toBe(1);
    expect(await until(() => !alive(workers[1]), 5_000)).toBe(true);
  });
});

describe('bench:replicas process meter arithmetic', () => {
  const reading = (processes: Array<[string, number]>, backends: Array<[number, string, number]>, xid: bigint): Reading => ({
    at: 0,
    processes: new Map(processes),
    backends: new Map(backends.map(([pid, app, ms]) => [pid, { app, ms }])),
    client: 0,
    xid,
    commits: 0,
    walBytes: 0n,
    walSyncs: 0,
    rows: {},
  });

  it('adds a cluster’s workers into the service, counts a new worker or backend from zero, and divides per operation', () => {
    const before = reading(
      [
        ['orchestrator/primary', 100],
        ['orchestrator/w1:11', 1_000],
      ],
      [[7, 'orchestrator', 500]],
      100n,
    );
    const after = {
      ...reading(
        [
          ['orchestrator/primary', 100],
          ['orchestrator/w1:11', 1_600],
          ['orchestrator/w2:12', 400], // started between the readings
        ],
        [
          [7, 'orchestrator', 700],
          [8, 'orchestrator', 100], // a backend opened between the readings
        ],
        140n,
      ),
      at: 1_000,
    };
    const cost = perOperation(spentBetween(before, after), 20);
    expect(cost['cpu orchestrator/w1']).toBe(30);
    expect(cost['cpu orchestrator/w2']).toBe(20);
    expect(cost['cpu orchestrator']).toBe(50);
    expect(cost['cpu pg:orchestrator']).toBe(15);
    expect(cost['cpu total']).toBe(65);
    expect(cost['write transactions']).toBe(2);
  });
});
