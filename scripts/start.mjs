#!/usr/bin/env node
// `npm start`: builds dist/ when a source changed (scripts/build.mjs --if-needed), then runs the
// platform (dist/tools/start.js) in THIS process. npm forwards SIGINT and SIGTERM to its script's
// process only, and the script execs this file: so the process npm signals is the one that owns
// the apps, and `kill -TERM <npm's pid>` (systemd, a container runtime, an IDE's stop button)
// stops everything, as Ctrl-C does. MM_SKIP_BUILD=1 runs dist/ as it is (built beforehand: an
// image, a test suite).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function run() {
  createRequire(import.meta.url)(join(root, 'dist', 'tools', 'start.js'));
}

if (process.env.MM_SKIP_BUILD === '1') {
  run();
} else {
  const build = spawn(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-needed'], { cwd: root, stdio: 'inherit' });
  // A stop during the build stops the build, and nothing starts.
  let stopped;
  const forward = (signal) => {
    stopped = signal;
    build.kill(signal);
  };
  for (const signal of SIGNALS) process.on(signal, forward);
  build.once('exit', (code, signal) => {
    for (const s of SIGNALS) process.off(s, forward);
    if (stopped) process.exit(128 + constants.signals[stopped]);
    if (code !== 0) {
      process.stderr.write(`build failed (${signal ? `signal ${signal}` : `exit code ${code}`})\n`);
      process.exit(code || 1);
    }
    run();
  });
}
