#!/usr/bin/env node
// `npm test`: builds (the shutdown test runs a built app), then runs Jest's unit and integration
// projects against the local PostgreSQL and Redis (DATABASE_URL / REDIS_URL override them).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env }).status ?? 1;

let status = run(['scripts/build.mjs', '--if-needed']);
if (status === 0) status = run(['node_modules/jest/bin/jest.js', '--maxWorkers=2', ...process.argv.slice(2)]);
process.exit(status);
