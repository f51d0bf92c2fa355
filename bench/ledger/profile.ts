import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  idleMs: number;
  functions: { name: string; selfMs: number; share: number }[];
  packages: { name: string; selfMs: number; share: number }[];
}

/** Where a function lives: a package name, `node:` internals, the app's own code, or V8 itself. */
function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return url.split('/')[0];
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const m = /\/(apps\/[^/]+|libs\/[^/]+)\//.exec(url);
  return m ? m[1] : 'other';
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const m = /\/((apps|libs|bench)\/.*)$/.exec(url);
  return m ? m[1] : url.replace(/^file:\/\//, '');
}

/** Self time of every function and package of the newest profile in `dir`. */
export function summarizeProfile(dir: string, top = 30): ProfileSummary | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return undefined;
  const file = join(dir, files.sort().at(-1)!);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, k) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[k] ?? 0)));
  const fns = new Map<string, number>();
  const pkgs = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    total += us;
    if (functionName === '(idle)' || functionName === '(program)') {
      if (functionName === '(idle)') idle += us;
    }
    const name = `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`.trim();
    fns.set(name, (fns.get(name) ?? 0) + us);
    const pkg = packageOf(url, functionName);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const busy = total - idle;
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, share: busy > 0 ? us / busy : 0 }));
  return { file, totalMs: Math.round(total / 1000), idleMs: Math.round(idle / 1000), functions: rank(fns), packages: rank(pkgs) };
}

export function printProfile(summary: ProfileSummary): void {
  const out = [
    `\nCPU profile of the ledger process: ${summary.file}`,
    `sampled ${summary.totalMs} ms, idle ${summary.idleMs} ms (shares below are of the busy time)`,
    '\nSelf time by package:',
    ...summary.packages
      .slice(0, 15)
      .map((p) => `  ${(p.share * 100).toFixed(1).padStart(5)} %  ${String(p.selfMs).padStart(8)} ms  ${p.name}`),
    '\nTop functions by self time:',
    ...summary.functions.map((f) => `  ${(f.share * 100).toFixed(1).padStart(5)} %  ${String(f.selfMs).padStart(8)} ms  ${f.name}`),
  ];
  process.stdout.write(out.join('\n') + '\n');
}
