/**
 * Reads a V8 CPU profile (`.cpuprofile`, as written by `node --cpu-prof` or the inspector) and
 * answers where the busy time went: self time by origin (a package under node_modules, one of our
 * apps or libs, Node's internals, GC), inclusive time by package (time with that package anywhere
 * on the stack: "everything class-validator costs", callees included) and the top functions.
 *
 * Also runnable on its own: `node dist/bench/flow/profile-summary.js <file.cpuprofile> [flows]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** wall time the profile covers, ms */
  wallMs: number;
  /** sampled time not idle, ms */
  busyMs: number;
  /** [origin, self ms] by decreasing time */
  selfByOrigin: Array<[string, number]>;
  /** [package, inclusive ms] by decreasing time */
  inclusiveByPackage: Array<[string, number]>;
  /** [function, self ms] by decreasing time */
  topFunctions: Array<[string, number]>;
}

const SPECIAL = new Set(['(idle)', '(garbage collector)', '(program)', '(root)']);

/** Where a frame's code comes from: `pkg:<name>`, `app:<service>/<folder>`, `lib:<name>`, `node:<module>` or a special. */
export function originOf(frame: ProfileNode['callFrame']): string {
  if (SPECIAL.has(frame.functionName) && !frame.url) return frame.functionName;
  const url = frame.url;
  if (!url) return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  if (url.startsWith('node:internal/deps/')) return `node:${url.slice('node:internal/deps/'.length).split('/')[0]}`;
  if (url.startsWith('node:internal/')) return `node:${url.slice('node:internal/'.length).split('/')[0]}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.startsWith('wasm:')) return 'wasm (undici llhttp)';
  const app = /\/apps\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (app) return `app:${app[1]}/${app[2].replace(/\.js$/, '')}`;
  const lib = /\/libs\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (lib) return `lib:${lib[1]}/${lib[2].replace(/\.js$/, '')}`;
  if (url.includes('/bench/')) return 'bench';
  return url.split('/').slice(-2).join('/');
}

/** The package a frame belongs to, coarser than its origin: `app:*` and `lib:*` fold to the app or lib. */
function packageOf(frame: ProfileNode['callFrame']): string {
  const origin = originOf(frame);
  if (origin.startsWith('app:') || origin.startsWith('lib:')) return origin.split('/')[0];
  return origin;
}

export function summariseProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the sample's node was on the CPU for the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  const selfByOrigin = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const origin = originOf(node.callFrame);
    selfByOrigin.set(origin, (selfByOrigin.get(origin) ?? 0) + us);
    if (origin === '(idle)') continue;
    busy += us;
    const f = node.callFrame;
    const fn = `${f.functionName || '(anonymous)'} ${origin}${f.url && !f.url.startsWith('node:') ? `:${f.lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const pkg = packageOf(byId.get(cur)!.callFrame);
      // `bench` frames are the trace preload's wrappers around every request: not a cost of their own.
      if (pkg === '(root)' || pkg === 'bench' || seen.has(pkg)) continue;
      seen.add(pkg);
      inclusive.set(pkg, (inclusive.get(pkg) ?? 0) + us);
    }
  }
  const ms = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]): [string, number] => [k, Math.round(v / 100) / 10]);
  return {
    wallMs: Math.round((profile.endTime - profile.startTime) / 1000),
    busyMs: Math.round(busy / 1000),
    selfByOrigin: ms(selfByOrigin, top),
    inclusiveByPackage: ms(inclusive, top),
    topFunctions: ms(functions, top),
  };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** Plain-text report of one summary; `flows` turns totals into milliseconds per flow. */
export function formatSummary(name: string, s: ProfileSummary, flows?: number): string {
  const per = (v: number) => (flows ? `${(v / flows).toFixed(2)} ms/flow` : `${v} ms`);
  const lines = [
    `${name}: busy ${s.busyMs} ms of ${s.wallMs} ms (${((100 * s.busyMs) / Math.max(1, s.wallMs)).toFixed(0)} % of one core)${flows ? `, ${per(s.busyMs)}` : ''}`,
    '  self time by origin:',
    ...s.selfByOrigin.filter(([k]) => k !== '(idle)').map(([k, v]) => `    ${per(v).padStart(16)}  ${k}`),
    '  inclusive time by package (callees included):',
    ...s.inclusiveByPackage.map(([k, v]) => `    ${per(v).padStart(16)}  ${k}`),
    '  top functions (self):',
    ...s.topFunctions.map(([k, v]) => `    ${per(v).padStart(16)}  ${k}`),
  ];
  return lines.join('\n');
}

if (require.main === module) {
  const [file, flows] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: profile-summary <file.cpuprofile> [flows]\n');
    process.exit(2);
  }
  process.stdout.write(formatSummary(file, summariseProfile(readProfile(file)), flows ? Number(flows) : undefined) + '\n');
}
