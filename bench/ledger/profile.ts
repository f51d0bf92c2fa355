import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProfileSummary, formatSummary, readProfile, summariseProfile } from '../flow/profile-summary';

/**
 * `BENCH_PROFILE=1 npm run bench:ledger -- --only W1`: the ledger process runs with `--cpu-prof`
 * into a fresh tmp folder, and when it stops the bench prints where its CPU went (self time by
 * function and by package). The .cpuprofile files stay there for Chrome DevTools / speedscope.
 */
export function profileDir(): string | undefined {
  if (!process.env.BENCH_PROFILE || process.env.BENCH_PROFILE === '0') return undefined;
  return mkdtempSync(join(tmpdir(), 'ledger-cpuprof-'));
}

export function profileArgs(dir: string | undefined): string[] {
  // A 250 µs sampling interval: fine enough for a request that costs a millisecond or two.
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=250'] : [];
}

/**
 * Prints where the ledger process's CPU went, from the newest profile in `dir`, with the summariser
 * bench:flow uses (self time by origin, inclusive time by package, top functions); the summary goes
 * into the results file too. One summariser, so both benches attribute each sample's time the same way.
 */
export function reportNewestProfile(dir: string, top = 30): (ProfileSummary & { file: string }) | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  if (files.length === 0) return undefined;
  const file = join(dir, files.at(-1)!);
  const summary = summariseProfile(readProfile(file), top);
  process.stdout.write(`
CPU profile of the ledger process: ${file}
${formatSummary('ledger', summary)}
`);
  return { file, ...summary };
}
