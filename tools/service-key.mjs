#!/usr/bin/env node
// Prints a new service key and its SHA-256 digest (docs/service-credentials.md), or the digest of a
// key read from stdin with --digest. Runs without a build or npm: `node tools/service-key.mjs <caller>`.
import { createHash, randomBytes } from 'node:crypto';

const CALLERS = ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher', 'ops'];
const USAGE = `usage: node tools/service-key.mjs <${CALLERS.join('|')}>
       node tools/service-key.mjs --digest < file-holding-a-key
`;

/** Must equal serviceKeyDigest() in libs/platform/src/service-credentials.ts (a unit test checks it). */
const digest = (key) => createHash('sha256').update(key, 'utf8').digest('hex');
const out = (text) => process.stdout.write(text);

async function readStdin() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

const arg = process.argv[2];
if (arg === '--digest') {
  const key = await readStdin();
  if (key.length < 32) {
    process.stderr.write('a service key is at least 32 characters\n');
    process.exit(1);
  }
  out(`${digest(key)}\n`);
} else if (CALLERS.includes(arg)) {
  const key = randomBytes(32).toString('hex');
  const variable = `${arg.toUpperCase().replace(/-/g, '_')}_SERVICE_KEY`;
  const holder = arg === 'ops' ? 'the operators (a secret store, never a service)' : `${arg} only, as its INTERNAL_SERVICE_KEY`;
  out(`# The new key of ${arg}: secret, for ${holder}.\n`);
  out(`${variable}=${key}\n`);
  out(`# Its SHA-256 (not secret): every other service lists it in INTERNAL_TRUSTED_CALLERS as ${arg}:<digest>.\n`);
  out(`# While rotating, list the old digest too: ${arg}:<new digest>:<old digest>.\n`);
  out(`${variable}_SHA256=${digest(key)}\n`);
} else {
  process.stderr.write(USAGE);
  process.exit(arg === '--help' || arg === '-h' ? 0 : 2);
}
