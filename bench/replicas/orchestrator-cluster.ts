/**
 * Runs one service as a Node.js cluster: this process is the primary and forks
 * `BENCH_CLUSTER_REPLICAS` workers of `BENCH_CLUSTER_MAIN` (a service's dist main.js), which share its
 * listening ports the way `npm start` shares the orchestrator's between replicas. On Linux the
 * primary accepts each connection and hands it to the next worker in turn, so kept-alive
 * connections spread evenly and a request never passes through the primary.
 *
 * The primary exits non-zero as soon as a worker dies (the bench must not measure a cluster one
 * short), and on SIGTERM stops every worker and waits for them before it exits.
 */
import cluster, { type Worker } from 'node:cluster';
import { writeFileSync } from 'node:fs';

const replicas = Number(process.env.BENCH_CLUSTER_REPLICAS ?? 2);
const main = process.env.BENCH_CLUSTER_MAIN;
if (!main || !Number.isInteger(replicas) || replicas < 1) {
  process.stderr.write('orchestrator-cluster: BENCH_CLUSTER_MAIN and a BENCH_CLUSTER_REPLICAS of 1 or more are required\n');
  process.exit(2);
}

// Round robin, as npm start sets it (tools/start.ts): the primary accepts and passes each connection on.
cluster.schedulingPolicy = cluster.SCHED_RR;
cluster.setupPrimary({ exec: main });
const workers: Worker[] = [];
let stopping = false;
for (let i = 0; i < replicas; i++) workers.push(cluster.fork({ BENCH_CLUSTER_WORKER: String(i + 1) }));

// BENCH_CLUSTER_READY_FILE: written once every worker has opened BENCH_CLUSTER_LISTENERS listeners
// (the orchestrator has two, public and internal): one healthy worker answering /health says
// nothing of the others.
const readyFile = process.env.BENCH_CLUSTER_READY_FILE;
const listenersEach = Number(process.env.BENCH_CLUSTER_LISTENERS ?? 1);
const listening = new Map<number, number>();
cluster.on('listening', (worker) => {
  listening.set(worker.id, (listening.get(worker.id) ?? 0) + 1);
  const all = workers.every((w) => (listening.get(w.id) ?? 0) >= listenersEach);
  if (all && readyFile) writeFileSync(readyFile, String(process.pid));
});

cluster.on('exit', (worker, code, signal) => {
  if (stopping) return;
  process.stderr.write(`orchestrator-cluster: worker ${worker.process.pid} exited (${signal ?? code}); stopping\n`);
  stopping = true;
  for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
  process.exit(1);
});

const stop = (): void => {
  if (stopping) return;
  stopping = true;
  const alive = workers.filter((w) => !w.isDead());
  if (alive.length === 0) process.exit(0);
  let left = alive.length;
  for (const w of alive) {
    w.process.once('exit', () => {
      if (--left === 0) process.exit(0);
    });
    w.process.kill('SIGTERM');
  }
  setTimeout(() => {
    for (const w of alive) if (!w.isDead()) w.process.kill('SIGKILL');
    process.exit(0);
  }, 10_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
