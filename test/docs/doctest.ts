/**
 * Runs the commands of a markdown document, so that what the docs tell a reader to type keeps working.
 *
 * The convention, for whoever writes docs (also in docs/contributing.md, "Docs whose commands run"):
 *
 * - A fenced block whose info string is `sh doctest` runs. Every runnable block of one document runs,
 *   in order, in ONE bash session (`set -euo pipefail`), so `TOKEN=$(…)` in one block is there for
 *   the next ones. Each block must exit 0.
 * - A block `sh doctest-env` (the README has one) holds the variables the reader exports before
 *   `npm start`. The test runs it first and gives what it exports to the platform it starts and to
 *   every document's session, as the reader would in both terminals.
 * - A block `json doctest-output` or `text doctest-output` right after a runnable block is what that
 *   block prints; the test checks it (`matchJson`, `matchText`): a doc example that is wrong fails.
 * - The ports in the docs are the defaults (3000–3004, 3100 for the orchestrator's internal
 *   listener, 8080 for the example webhook receiver). The test maps each to a port of its own: in
 *   `127.0.0.1:<port>` / `localhost:<port>` and in `PORT=<port>`, nowhere else.
 * - `npm run <script>` runs the script's command from package.json without its build step: the
 *   test command built dist/ already, and a rebuild from inside one test file would delete dist/
 *   under the others.
 * - In the session, `curl` fails on an HTTP error (it is `curl --fail-with-body`): a wrong path or
 *   body fails the block, with the error body in the report. A reader sees the same body. A block
 *   that shows a refusal on purpose is `sh doctest-http-error`: its curl is plain, and its output
 *   block says which error it must be.
 * - `jq` is used as installed; where it is not, a small stand-in (jq-lite.js) handles the path
 *   expressions the docs use and refuses anything else.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type BlockKind = 'run' | 'env';

export interface Expected {
  /** 1-based line of the opening fence */
  line: number;
  format: 'json' | 'text';
  body: string;
}

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  kind: BlockKind;
  code: string;
  /** the block's info string words after the language, e.g. ['doctest'] */
  flags: string[];
  expected?: Expected;
}

/** Any fenced block of the document (runnable or not), for the check that unrun shell blocks are deliberate. */
export interface FencedBlock {
  line: number;
  language: string;
  flags: string[];
  code: string;
}

const KNOWN_FLAGS = new Set(['doctest', 'doctest-http-error', 'doctest-env', 'doctest-output']);

export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).exec(lines[j]);
      if (close) break;
      // Content of a block inside a list item carries the fence's indentation.
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    const [language = '', ...flags] = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ line: i + 1, language, flags, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The runnable blocks of a document, each with the expected output that follows it. */
export function parseDoc(markdown: string, file: string): DocBlock[] {
  const result: DocBlock[] = [];
  let previous: DocBlock | undefined;
  for (const block of fencedBlocks(markdown)) {
    const unknown = block.flags.filter((f) => f.startsWith('doctest') && !KNOWN_FLAGS.has(f));
    if (unknown.length > 0) throw new Error(`${file}:${block.line}: unknown doctest flag ${unknown.join(', ')}`);
    if (block.flags.includes('doctest-output')) {
      if (!previous || previous.expected)
        throw new Error(`${file}:${block.line}: a doctest-output block must follow a runnable block (doctest) that has no output yet`);
      if (block.language !== 'json' && block.language !== 'text')
        throw new Error(`${file}:${block.line}: doctest-output is json or text, not "${block.language}"`);
      previous.expected = { line: block.line, format: block.language, body: block.code };
      continue;
    }
    const kind: BlockKind | undefined = block.flags.includes('doctest-env')
      ? 'env'
      : block.flags.includes('doctest') || block.flags.includes('doctest-http-error')
        ? 'run'
        : undefined;
    if (!kind) {
      // Any other block between a command and its output breaks the pairing.
      previous = undefined;
      continue;
    }
    if (block.language !== 'sh' && block.language !== 'bash') throw new Error(`${file}:${block.line}: a doctest block is sh or bash`);
    previous = { file, line: block.line, kind, code: block.code, flags: block.flags };
    result.push(previous);
  }
  return result;
}

/** Default port of the docs → port of the platform under test. */
export type PortMap = Record<number, number>;

export function platformPorts(base: number, receiverPort: number): PortMap {
  return { 3000: base, 3001: base + 1, 3002: base + 2, 3003: base + 3, 3004: base + 4, 3100: base + 100, 8080: receiverPort };
}

/** The substitutions of the convention above: ports, `npm run`, the build directory. */
export function substitute(code: string, ports: PortMap, scripts: Record<string, string>, dist: string): string {
  let out = code.replace(/\b(localhost|127\.0\.0\.1):(\d{2,5})\b/g, (whole, _host: string, port: string) =>
    ports[Number(port)] === undefined ? whole : `127.0.0.1:${ports[Number(port)]}`,
  );
  out = out.replace(/\bPORT=(\d{2,5})\b/g, (whole, port: string) =>
    ports[Number(port)] === undefined ? whole : `PORT=${ports[Number(port)]}`,
  );
  out = out.replace(/\bnpm run ([\w:-]+)/g, (_whole, name: string) => {
    const script = scripts[name];
    if (script === undefined) throw new Error(`npm run ${name}: no such script in package.json`);
    return script.replace(/^node scripts\/build\.mjs --if-needed && /, '');
  });
  return out.replace(/(^|[\s"'=])dist\//g, (_whole, before: string) => `${before}${dist}/`);
}

export interface BlockResult {
  block: DocBlock;
  /** what the block printed on stdout */
  stdout: string;
  /** true when the session got past the block's end */
  finished: boolean;
}

export interface SessionResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stderr: string;
  blocks: BlockResult[];
}

const MARK = '@@doctest-block-end';

/** Bash functions every session starts with (see the convention above). */
export function prelude(jqLite: string): string {
  return [
    'set -euo pipefail',
    'shopt -s inherit_errexit',
    'DOCTEST_CURL_FAIL=1',
    // An HTTP error's body usually lands in a `$(...)` and is lost with it: keep a copy on stderr,
    // which the failure message shows, with the method and path that failed.
    'curl() {',
    '  if [ "$DOCTEST_CURL_FAIL" != 1 ]; then command curl --max-time 30 "$@"; return; fi',
    '  local out rc=0; out=$(mktemp)',
    '  command curl --fail-with-body --max-time 30 "$@" > "$out" || rc=$?',
    '  cat "$out"',
    '  if [ "$rc" -ne 0 ]; then printf \'doctest: curl exited %d for: %s\\n--- its body ---\\n\' "$rc" "$*" >&2; head -c 2000 "$out" >&2; echo >&2; fi',
    '  rm -f "$out"',
    '  return "$rc"',
    '}',
    `command -v jq >/dev/null 2>&1 || jq() { node ${JSON.stringify(jqLite)} "$@"; }`,
  ].join('\n');
}

/**
 * Runs blocks in one bash session with `env`, in `cwd`. The session gets its own process group,
 * killed at the end, so a receiver a doc starts in the background does not outlive it.
 */
export async function runSession(
  blocks: DocBlock[],
  options: { env: Record<string, string>; cwd: string; transform: (code: string) => string; timeoutMs: number; jqLite: string },
): Promise<SessionResult> {
  const parts = [prelude(options.jqLite)];
  blocks.forEach((block, index) => {
    const failOnHttpError = block.flags.includes('doctest-http-error') ? 0 : 1;
    parts.push(
      `# ${block.file}:${block.line}`,
      `DOCTEST_CURL_FAIL=${failOnHttpError}`,
      options.transform(block.code),
      `printf '\\n${MARK} %d\\n' ${index}`,
    );
  });
  const script = `${parts.join('\n')}\n`;
  const child: ChildProcess = spawn('bash', ['-c', script], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, options.timeoutMs);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (c, s) => resolve({ code: c, signal: s })),
  );
  clearTimeout(timer);
  // Whatever the document left running in the background (a webhook receiver) ends with it.
  killGroup(child);

  const results: BlockResult[] = blocks.map((block) => ({ block, stdout: '', finished: false }));
  let rest = stdout;
  for (let index = 0; index < blocks.length; index++) {
    const marker = `\n${MARK} ${index}\n`;
    const at = rest.indexOf(marker);
    if (at < 0) {
      results[index].stdout = rest;
      break;
    }
    results[index] = { block: blocks[index], stdout: rest.slice(0, at), finished: true };
    rest = rest.slice(at + marker.length);
  }
  return { exitCode: code, signal, timedOut, stderr, blocks: results };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

// ---------------------------------------------------------------------------------------------
// Expected outputs

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `…` in an expected text stands for any characters (possibly none). */
function wildcard(expected: string): RegExp {
  return new RegExp(`^${expected.split('…').map(escapeRegExp).join('.*')}$`, 's');
}

/**
 * Whether an expected string (from the doc) matches an actual one. Exact, except: `…` stands for
 * any characters, and a doc's example UUID, ISO-8601 time or access token (a value made at run time)
 * matches any value of that form.
 */
export function matchString(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  if (expected.includes('…')) return wildcard(expected).test(actual);
  for (const form of [UUID, ISO_TIME, JWT]) if (form.test(expected)) return form.test(actual);
  return false;
}

/**
 * Every field the doc shows must be in the actual answer with a matching value (`matchString` for
 * strings; numbers, booleans and null exactly; arrays element by element, the actual one may be
 * longer). Fields the doc leaves out are not checked. Returns the mismatches (empty: it matches).
 */
export function matchJson(expected: unknown, actual: unknown, path = '$'): string[] {
  if (typeof expected === 'string') {
    return typeof actual === 'string' && matchString(expected, actual)
      ? []
      : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length < expected.length) return [`${path}: expected at least ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((item, i) => matchJson(item, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([key, value]) =>
      key in actual ? matchJson(value, (actual as Record<string, unknown>)[key], `${path}.${key}`) : [`${path}.${key}: missing`],
    );
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/**
 * The last JSON value a block printed: the longest tail of its output that is one JSON value (a
 * pretty-printed answer, or the last of several answers curl printed on one line).
 */
export function lastJson(stdout: string): unknown {
  const text = stdout.trimEnd();
  for (let start = 0; start < text.length; start++) {
    if (text[start] !== '{' && text[start] !== '[') continue;
    try {
      return JSON.parse(text.slice(start));
    } catch {
      // an earlier value, or text, comes before the last one
    }
  }
  throw new Error('the block printed no JSON');
}

/** Each non-empty line of the expected text must match a line of the output (`…` = anything). */
export function matchText(expected: string, actual: string): string[] {
  const lines = actual.split('\n').map((l) => l.trim());
  return expected
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .filter((want) => !lines.some((line) => matchString(want, line) || wildcard(want).test(line)))
    .map((want) => `no output line matches ${JSON.stringify(want)}`);
}

/** The mismatches between a block's output and the output its doc shows. */
export function checkOutput(expected: Expected, stdout: string, transform: (text: string) => string): string[] {
  const body = transform(expected.body);
  if (expected.format === 'text') return matchText(body, stdout);
  let actual: unknown;
  try {
    actual = lastJson(stdout);
  } catch (error) {
    return [(error as Error).message];
  }
  return matchJson(JSON.parse(body), actual);
}

/** A failure report that says which block of which document, with what it printed. */
export function describeFailure(session: SessionResult, problems: Array<{ block: DocBlock; messages: string[] }>): string {
  const lines: string[] = [];
  const failed = session.blocks.find((b) => !b.finished);
  if (failed || session.exitCode !== 0) {
    const where = failed ? `${failed.block.file}:${failed.block.line}` : 'after the last block';
    lines.push(
      `the block at ${where} ${session.timedOut ? 'timed out' : `exited ${session.exitCode ?? session.signal}`}`,
      failed ? `--- block ---\n${failed.block.code}\n--- its stdout ---\n${failed.stdout.slice(-4_000)}` : '',
      `--- stderr ---\n${session.stderr.slice(-4_000)}`,
    );
  }
  for (const { block, messages } of problems) {
    const out = session.blocks.find((b) => b.block === block)?.stdout ?? '';
    lines.push(
      `${block.file}:${block.expected?.line ?? block.line}: the output differs from the doc:\n  ${messages.join('\n  ')}\n--- stdout ---\n${out.slice(-3_000)}`,
    );
  }
  return lines.join('\n');
}

/** package.json scripts, for `npm run` (see the convention). */
export function npmScripts(root: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
}

const ENV_MARK = '@@doctest-env';

/** Runs a `doctest-env` block and returns the variables it exported (those not already in `env` as they are). */
export async function runEnvBlock(
  block: DocBlock,
  options: { env: Record<string, string>; cwd: string; jqLite: string },
): Promise<Record<string, string>> {
  const script = `${prelude(options.jqLite)}\n${block.code}\nprintf '${ENV_MARK}\\0'\nenv -0\n`;
  const child = spawn('bash', ['-c', script], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`${block.file}:${block.line}: the doctest-env block exited ${code}\n${stderr}`);
  const exported: Record<string, string> = {};
  for (const entry of stdout.slice(stdout.indexOf(`${ENV_MARK}\0`) + ENV_MARK.length + 1).split('\0')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    const [name, value] = [entry.slice(0, eq), entry.slice(eq + 1)];
    // bash's own variables are not the document's
    if (['SHLVL', '_', 'PWD', 'OLDPWD'].includes(name) || options.env[name] === value) continue;
    exported[name] = value;
  }
  return exported;
}

export interface DocumentRun {
  blocks: DocBlock[];
  session: SessionResult;
  problems: Array<{ block: DocBlock; messages: string[] }>;
  ok: boolean;
  report: string;
}

/** Runs the `doctest` blocks of one document in one session and checks their outputs. */
export async function runDocument(
  file: string,
  options: { root: string; ports: PortMap; env: Record<string, string>; dist: string; timeoutMs: number },
): Promise<DocumentRun> {
  const blocks = parseDoc(readFileSync(join(options.root, file), 'utf8'), file).filter((b) => b.kind === 'run');
  const scripts = npmScripts(options.root);
  const transform = (code: string) => substitute(code, options.ports, scripts, options.dist);
  const session = await runSession(blocks, {
    env: options.env,
    cwd: options.root,
    transform,
    timeoutMs: options.timeoutMs,
    jqLite: join(__dirname, 'jq-lite.js'),
  });
  const problems = session.blocks
    .filter((r) => r.finished && r.block.expected)
    .map((r) => ({ block: r.block, messages: checkOutput(r.block.expected!, r.stdout, transform) }))
    .filter((p) => p.messages.length > 0);
  const ok = session.exitCode === 0 && session.blocks.every((b) => b.finished) && problems.length === 0;
  return { blocks, session, problems, ok, report: ok ? '' : describeFailure(session, problems) };
}
