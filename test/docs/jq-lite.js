#!/usr/bin/env node
/**
 * Stand-in for `jq` in the doc-test (test/docs/doctest.ts) on a machine without jq: the forms the
 * docs use, nothing more. `jq [-r] [-e] [-c] FILTER` where FILTER is `.` or a path such as
 * `.token`, `.items[0].referenceId`, `.accounts.XAF`, `.messages[].text` (`[]`: each element, one
 * output per element). Anything else is refused (exit 3), so a doc that starts using more of jq
 * fails loudly here instead of being misread.
 */
'use strict';

const args = process.argv.slice(2);
let raw = false;
let exitStatus = false;
let compact = false;
const filters = [];
for (const arg of args) {
  if (/^-[rec]+$/.test(arg)) {
    raw ||= arg.includes('r');
    exitStatus ||= arg.includes('e');
    compact ||= arg.includes('c');
  } else filters.push(arg);
}
if (filters.length !== 1) {
  process.stderr.write('jq-lite: one filter expected\n');
  process.exit(3);
}
const filter = filters[0].trim();
if (!/^\.(?:[A-Za-z_][\w]*|\[\d*\])?(?:\.[A-Za-z_][\w]*|\[\d*\])*$/.test(filter)) {
  process.stderr.write(`jq-lite: unsupported filter ${filter} (install jq)\n`);
  process.exit(3);
}
/** a field name, an index, or `true` for `[]` (every element) */
const steps = [...filter.matchAll(/\.([A-Za-z_]\w*)|\[(\d*)\]/g)].map((m) =>
  m[1] !== undefined ? m[1] : m[2] === '' ? true : Number(m[2]),
);

function fail(message, status) {
  process.stderr.write(`jq-lite: ${message}\n`);
  process.exit(status);
}

/** Applies the steps to one value; `[]` fans out, as jq's iteration does. */
function apply(value, rest) {
  if (rest.length === 0) return [value];
  const [step, ...next] = rest;
  if (value === null || value === undefined) return step === true ? fail('cannot iterate over null', 5) : apply(null, next);
  if (step === true) {
    if (!Array.isArray(value)) fail(`cannot iterate over ${typeof value}`, 5);
    return value.flatMap((item) => apply(item, next));
  }
  if (typeof step === 'number' ? !Array.isArray(value) : typeof value !== 'object' || Array.isArray(value))
    fail(`cannot index ${Array.isArray(value) ? 'array' : typeof value} with ${JSON.stringify(step)}`, 5);
  return apply(value[step] === undefined ? null : value[step], next);
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  let parsed;
  try {
    parsed = JSON.parse(input);
  } catch {
    fail('input is not JSON', 2);
  }
  const values = apply(parsed, steps);
  for (const value of values) {
    const text = raw && typeof value === 'string' ? value : JSON.stringify(value, null, compact ? undefined : 2);
    process.stdout.write(`${text}\n`);
  }
  const last = values[values.length - 1];
  if (exitStatus && (values.length === 0 || last === null || last === false)) process.exit(1);
});
