/**
 * The docs' commands run (docs/contributing.md "Docs whose commands run"): the README's walkthrough and the
 * guides' examples are executed against a platform this file starts, and what the docs show as
 * their output is checked. The convention for marking commands is in ./doctest.ts and
 * docs/contributing.md.
 *
 * The platform is the built `npm start` (dist/tools/start.js, through runStart: its own port range,
 * Redis namespace and a copy of the migrated template database), started with the variables the
 * README's `doctest-env` block exports, as a reader starts it. Each document then runs in its own
 * bash session (`curl`, `jq`, `node`, `openssl` and coreutils; see doctest.ts for jq).
 *
 * Shell blocks that are NOT run are listed in UNRUN with the reason: a new command in a doc is either
 * marked `sh doctest` or added there, and an entry whose block is gone fails the test.
 *
 * A document that signs in as the bootstrap administrator runs with an administrator of its own
 * (./doc-administrators.ts) in BOOTSTRAP_ADMIN_PHONE, BOOTSTRAP_ADMIN_PIN and
 * BOOTSTRAP_ADMIN_TOTP_SECRET, so that no document waits for a TOTP step another one used.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIST, START, type StartedPlatform, runStart } from '../e2e/supervision-support';
import { type TestDatabase, createTestDatabase } from '../support/test-env';
import {
  type DocBlock,
  checkOutput,
  fencedBlocks,
  matchJson,
  matchString,
  matchText,
  parseDoc,
  platformPorts,
  runDocument,
  runEnvBlock,
  runSession,
  substitute,
} from './doctest';
import { freePort } from '../support/free-port';
import { bootstrapAdminTotpSecret } from '../../tools/staff-sign-in';
import { type DocAdministrator, createDocAdministrators } from './doc-administrators';

const ROOT = join(__dirname, '..', '..');
const JQ_LITE = join(__dirname, 'jq-lite.js');

/** The documents whose commands run, with the least each must contain (a removed marker fails). */
const RUN: Array<{ file: string; blocks: number; outputs: number }> = [
  { file: 'README.md', blocks: 1, outputs: 1 },
  { file: 'docs/operations.md', blocks: 5, outputs: 5 },
  { file: 'docs/mobile-api.md', blocks: 27, outputs: 25 },
  { file: 'docs/partners.md', blocks: 18, outputs: 17 },
  { file: 'docs/registration.md', blocks: 6, outputs: 6 },
  { file: 'docs/statements.md', blocks: 10, outputs: 9 },
  { file: 'docs/monitoring.md', blocks: 10, outputs: 9 },
  { file: 'docs/regulatory-reports.md', blocks: 11, outputs: 10 },
  { file: 'docs/reconciliation.md', blocks: 11, outputs: 10 },
];

/**
 * Shell blocks left unrun, each with why: the first line of the block (trimmed) → the reason.
 * Everything else a reader is told to type runs above.
 */
const UNRUN: Record<string, Record<string, string>> = {
  'README.md': {
    'npm ci && npm start    # 1. build, migrate, start the five services → http://127.0.0.1:3000/api':
      'installs dependencies and runs the whole test suite: the suite this test is part of',
    'npm start          # terminal 1':
      'the test starts this very command (dist/tools/start.js) itself, with the variables of the doctest-env block, before any document runs',
    'cp .env.example .env        # then replace every change-me value (service keys and digests, role passwords, PIN pepper, …)':
      'docker compose builds images and runs containers: not available to the test suite',
  },
  'docs/operations.md': {
    'npm ci': 'npm ci reinstalls node_modules under the running suite; npm start is what the test itself starts',
    'MM_REPLICAS=2 npm start                                   # two of everything':
      'starts a second platform at two replicas on the default ports; test/faults/start-replicas.fault.ts runs it on a free base',
    'DATABASE_URL=postgres://postgres@127.0.0.1:5499/mobile_money npm start   # embedded PostgreSQL on 5499':
      'each line starts a whole second platform on the default ports (test/e2e/start.test.ts and the supervision tests run npm start)',
    'cp .env.example .env     # replace every "change-me" value, e.g. with `openssl rand -hex 32`':
      'docker compose builds images and runs containers: not available to the test suite',
    'pg_dump --format=custom --file=mobile_money-$(date -u +%Y%m%dT%H%MZ).dump "$DATABASE_URL"':
      'a backup and a restore of the whole database, against production: not something a test does to a shared server',
  },
  'docs/scaling.md': {
    'node dist/bench/replicas/meter.js \\':
      'runs bench:partners and bench:webhooks under the meter: minutes of load that want a quiet machine, not a test',
  },
  'docs/contributing.md': {
    'npm run lint        # tsc --noEmit, eslint, prettier --check':
      'the checks CI runs on the whole repository, not a documented behaviour',
    'node node_modules/jest/bin/jest.js test/docs/docs.test.ts': 'this very test',
  },
};

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

/** What a reader's terminal has: no Jest variables (NODE_ENV=test would change what the tools do). */
function readerEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TERM', 'USER'];
  return Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
}

/** Whether a document's commands sign in as the administrator (directly, or through the demo). */
function signsInAsAdministrator(file: string): boolean {
  const blocks = parseDoc(readFileSync(join(ROOT, file), 'utf8'), file).filter((b) => b.kind === 'run');
  return blocks.some((b) => /\bBOOTSTRAP_ADMIN_|\bnpm run demo\b/.test(b.code));
}

function markdownFiles(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}

describe('the documents: checks of the doc-test itself', () => {
  it('pairs each command with the output shown after it, and refuses unknown flags', () => {
    const doc = [
      '```sh doctest',
      'echo one',
      '```',
      'The answer:',
      '```json doctest-output',
      '{ "a": 1 }',
      '```',
      '- in a list:',
      '  ```sh doctest',
      '  echo two',
      '  ```',
    ].join('\n');
    const blocks = parseDoc(doc, 'x.md');
    expect(blocks.map((b) => [b.line, b.code, b.expected?.body])).toEqual([
      [1, 'echo one', '{ "a": 1 }'],
      [9, 'echo two', undefined],
    ]);
    expect(() => parseDoc('```sh doctest-ouput\nx\n```', 'x.md')).toThrow(/unknown doctest flag/);
    expect(() => parseDoc('```json doctest-output\n{}\n```', 'x.md')).toThrow(/must follow a runnable block/);
  });

  it('maps the documented ports and npm scripts, and nothing that only looks like them', () => {
    const ports = platformPorts(24000, 41000);
    const scripts = { demo: 'node scripts/build.mjs --if-needed && node dist/tools/demo.js' };
    expect(substitute('curl localhost:3000/api/x 127.0.0.1:3100/metrics PORT=8080 "amount":3000', ports, scripts, '/b/dist')).toBe(
      'curl 127.0.0.1:24000/api/x 127.0.0.1:24100/metrics PORT=41000 "amount":3000',
    );
    expect(substitute('npm run demo', ports, scripts, '/b/dist')).toBe('node /b/dist/tools/demo.js');
    expect(() => substitute('npm run nothing-like-it', ports, scripts, '/b/dist')).toThrow(/no such script/);
  });

  it('matches expected outputs field by field, and a wrong field fails', () => {
    const actual = {
      intentId: '2b78a104-79bb-49c9-812b-1af2ee13709e',
      status: 'SUCCEEDED',
      amount: 5000,
      referenceId: 'MMPTX261123M01OLM2',
      completedAt: '2026-11-23T10:52:29.258Z',
      extra: true,
    };
    const shown = { intentId: '0d5e2f9a-7c1b-4a3e-9f8d-2b6c4e1a0f37', status: 'SUCCEEDED', amount: 5000, referenceId: 'MMPTX…' };
    expect(matchJson({ ...shown, completedAt: '2026-11-22T10:06:12.345Z' }, actual)).toEqual([]);
    expect(matchJson({ ...shown, status: 'FAILED' }, actual)).toEqual(['$.status: expected "FAILED", got "SUCCEEDED"']);
    expect(matchJson({ ...shown, amount: 50 }, actual)).toHaveLength(1);
    expect(matchJson({ ...shown, fee: 50 }, actual)).toEqual(['$.fee: missing']);
    expect(matchJson({ items: [{ a: 1 }, { a: 2 }] }, { items: [{ a: 1 }] })).toHaveLength(1);
    expect(matchString('MMPTX2611220A1B2C3', 'MMPTX261123M01OLM2')).toBe(false); // an example id is not a wildcard
    expect(matchText('confirmed SUCCEEDED, reference MMPTX…', 'x\n    confirmed SUCCEEDED, reference MMPTX1\n')).toEqual([]);
    expect(matchText('confirmed FAILED', 'confirmed SUCCEEDED')).toHaveLength(1);
    expect(checkOutput({ line: 1, format: 'json', body: '{"status":"ok"}' }, 'noise\n{\n  "status": "ok"\n}\n', (t) => t)).toEqual([]);
    expect(checkOutput({ line: 1, format: 'json', body: '{"status":"ok"}' }, 'no json here', (t) => t)).toEqual([
      'the block printed no JSON',
    ]);
  });

  it('stops at the first failing block and says which one', async () => {
    const block = (line: number, code: string): DocBlock => ({ file: 'x.md', line, kind: 'run', code, flags: ['doctest'] });
    const session = await runSession([block(1, 'A=1; echo "a=$A"'), block(5, 'echo "still $A"; false'), block(9, 'echo never')], {
      env: readerEnv(),
      cwd: ROOT,
      transform: (c) => c,
      timeoutMs: 10_000,
      jqLite: JQ_LITE,
    });
    expect(session.exitCode).not.toBe(0);
    expect(session.blocks.map((b) => [b.finished, b.stdout.trim()])).toEqual([
      [true, 'a=1'],
      [false, 'still 1'],
      [false, ''],
    ]);
  });

  it('an HTTP error inside $(...) still shows its status and body in the failure', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"code":"RATE_LIMITED"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/busy`;
    try {
      const block: DocBlock = { file: 'x.md', line: 1, kind: 'run', code: `X=$(curl -s ${url})\necho never`, flags: ['doctest'] };
      const session = await runSession([block], { env: readerEnv(), cwd: ROOT, transform: (c) => c, timeoutMs: 10_000, jqLite: JQ_LITE });
      expect(session.exitCode).toBe(22);
      expect(session.blocks[0].stdout).toBe('');
      expect(session.stderr).toContain(`doctest: curl exited 22 for: -s ${url}`);
      expect(session.stderr).toContain('{"code":"RATE_LIMITED"}');
    } finally {
      server.close();
    }
  });

  it('jq-lite reads the paths the docs use, as jq does, and refuses the rest', () => {
    const input = JSON.stringify({ token: 'abc', items: [{ referenceId: 'MMPTX1' }], accounts: { XAF: 'u1' } });
    const jq = (...args: string[]) =>
      execFileSync(process.execPath, [JQ_LITE, ...args], { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    expect(jq('-r', '.token')).toBe('abc\n');
    expect(jq('-r', '.items[0].referenceId')).toBe('MMPTX1\n');
    expect(jq('-r', '.accounts.XAF')).toBe('u1\n');
    expect(jq('.missing')).toBe('null\n');
    expect(() => jq('-r', '.items | length')).toThrow();
  });

  it('every shell block of every document runs, or is listed in UNRUN with its reason', () => {
    const unlisted: string[] = [];
    const used = new Set<string>();
    for (const file of markdownFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const block of fencedBlocks(text)) {
        if (!SHELL.has(block.language) || block.flags.some((f) => f.startsWith('doctest'))) continue;
        const first = block.code.split('\n')[0].trim();
        if (UNRUN[file]?.[first]) used.add(`${file}\n${first}`);
        else unlisted.push(`${file}:${block.line}: ${first}`);
      }
    }
    const stale = Object.entries(UNRUN).flatMap(([file, entries]) =>
      Object.keys(entries)
        .filter((first) => !used.has(`${file}\n${first}`))
        .map((first) => `${file}: ${first}`),
    );
    expect({ unlisted, stale }).toEqual({ unlisted: [], stale: [] });
  });
});

describe('the documents: their commands run against a started platform', () => {
  let platform: StartedPlatform | undefined;
  let db: TestDatabase | undefined;
  let sessionEnv: Record<string, string>;
  let ports: Record<number, number>;
  let administrators: Map<string, DocAdministrator>;

  beforeAll(async () => {
    expect(existsSync(START)).toBe(true);
    // The README's doctest-env block: what the reader exports for `npm start` and the walkthrough.
    const envBlocks = parseDoc(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'README.md').filter((b) => b.kind === 'env');
    expect(envBlocks).toHaveLength(1);
    const docEnv = await runEnvBlock(envBlocks[0], { env: readerEnv(), cwd: ROOT, jqLite: JQ_LITE });

    db = await createTestDatabase();
    // Each document is written for a fresh platform, where the compliance officer it creates is the
    // first checker (created at once, STAFF_CREATE's bootstrap exception). Here every document runs
    // against one platform, so later officers would be four-eyes requests: staff creation is set
    // one-person for this run only (docs/approvals.md). It also lets the bootstrap administrator
    // create each document's own administrator below at once.
    // Every document signs in from 127.0.0.1, one right after the other, where a reader runs one at a
    // time: the documents' 30-odd sign-ins within a minute would meet auth's per-address login limit
    // (LOGIN_LIMIT_PER_IP, 30 a minute; docs/auth-limits.md), which no document is about.
    platform = await runStart('docs', {
      ...docEnv,
      DATABASE_URL: db.adminUrl,
      APPROVALS_ONE_PERSON_ACTIONS: 'STAFF_CREATE',
      LOGIN_LIMIT_PER_IP: '1000',
      // docs/reconciliation.md asks its reader to start the platform with these trust accounts (the
      // README's walkthrough has no use for them); its statement is of the XOF one.
      LEDGER_TRUST_ACCOUNTS: 'XAF:CM2110005000010123456789012,XOF:SN08SN0100152000048500003035',
    });
    // Generous: on a loaded 2-core machine five Node apps take a while to boot (the test waits on health, never sleeps).
    await platform.waitHealthy(120_000);
    ports = platformPorts(platform.base, await freePort());
    sessionEnv = { ...readerEnv(), ...docEnv, MM_PORT_BASE: String(platform.base) };
    // Created once the platform answers; a document that signs in as the administrator gets its own.
    const adminDocs = RUN.filter(({ file }) => signsInAsAdministrator(file)).map(({ file }) => file);
    const created = await createDocAdministrators(
      `http://127.0.0.1:${platform.base}`,
      {
        phone: docEnv.BOOTSTRAP_ADMIN_PHONE,
        pin: docEnv.BOOTSTRAP_ADMIN_PIN,
        totpSecret: bootstrapAdminTotpSecret(docEnv.MM_SERVICE_KEY_SEED),
      },
      adminDocs.length,
    );
    administrators = new Map(adminDocs.map((file, i) => [file, created[i]]));
  }, 150_000);

  afterAll(async () => {
    await platform?.cleanUp();
    await db?.drop();
  });

  it.each(RUN)(
    '$file: every command block exits 0 and prints what the document shows',
    async ({ file, blocks, outputs }) => {
      const env = { ...sessionEnv, ...administrators.get(file) };
      const run = await runDocument(file, { root: ROOT, ports, env, dist: DIST, timeoutMs: 90_000 });
      if (!run.ok) throw new Error(`${file}\n${run.report}`);
      expect(run.blocks.length).toBeGreaterThanOrEqual(blocks);
      expect(run.blocks.filter((b) => b.expected).length).toBeGreaterThanOrEqual(outputs);
    },
    100_000,
  );
});
