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
// Four files at once on a 2-core machine: an integration file spends much of its time waiting on
// PostgreSQL, Redis and its own apps' HTTP, and four workers fill those waits (the whole suite took
// 925 s with two workers and 671 s with four on the same machine, 2026-11-29). `npm test -- -w 2`
// chooses another number, `npm test -- -i <file>` one file in this process.
const args = process.argv.slice(2);
// Jest refuses a worker count beside --runInBand (-i), and would not take a second count over ours.
const chosen = (a) => /^(-w\d*|--maxWorkers|--max-workers|-i|--runInBand|--run-in-band)(=|$)/.test(a);
const workers = args.some(chosen) ? [] : ['--maxWorkers=4'];
if (status === 0) status = run(['node_modules/jest/bin/jest.js', ...workers, ...args]);
process.exit(status);
