#!/usr/bin/env node
// `npm test`: builds (the shutdown test runs a built app), makes sure Chromium is installed (browser
// tests of the console), then runs Jest's unit and integration
// projects against the local PostgreSQL and Redis (DATABASE_URL / REDIS_URL override them).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureChromium } from './ensure-chromium.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args) => spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env }).status ?? 1;

let status = run(['scripts/build.mjs', '--if-needed']);
// the console's browser tests need Debian's Chromium
if (status === 0) status = ensureChromium();
if (status === 0) status = run(['node_modules/jest/bin/jest.js', '--maxWorkers=2', ...process.argv.slice(2)]);
process.exit(status);
