/**
 * What the soak records and how it is summarised: operations bucketed by the minute they were
 * issued in, resident memory of each service process sampled over the run, and the trend check.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { percentile } from '../lib/bench';
import { OP_KINDS, type OpKind } from './mix';

export interface OpSample {
  kind: OpKind;
  /** when the operation was due, ms since the soak started */
  dueMs: number;
  /** answer time minus due time: the wait of an operation the generator could not start on time counts */
  latencyMs: number;
  code?: string;
}

export interface MinuteStats {
  minute: number;
  /** length of this bucket (the last one may be shorter) */
  seconds: number;
  issued: number;
  ok: number;
  errors: number;
  okPerSec: number;
  p50Ms: Partial<Record<OpKind, number>>;
  p99Ms: Partial<Record<OpKind, number>>;
  errorCodes: Record<string, number>;
  /** 1-minute load average of the machine at the end of this minute */
  load?: number;
}

export function byMinute(samples: OpSample[], durationMs: number, loadByMinute: number[] = []): MinuteStats[] {
  const minutes = Math.max(1, Math.ceil(durationMs / 60_000));
  const out: MinuteStats[] = [];
  for (let m = 0; m < minutes; m++) {
    const seconds = Math.min(60, (durationMs - m * 60_000) / 1000);
    const inMinute = samples.filter((s) => Math.floor(s.dueMs / 60_000) === m);
    const stats: MinuteStats = {
      minute: m + 1,
      seconds: Math.round(seconds * 10) / 10,
      issued: inMinute.length,
      ok: 0,
      errors: 0,
      okPerSec: 0,
      p50Ms: {},
      p99Ms: {},
      errorCodes: {},
      ...(loadByMinute[m] === undefined ? {} : { load: Math.round(loadByMinute[m] * 100) / 100 }),
    };
    for (const s of inMinute) {
      if (s.code) {
        stats.errors++;
        stats.errorCodes[s.code] = (stats.errorCodes[s.code] ?? 0) + 1;
      } else stats.ok++;
    }
    stats.okPerSec = seconds > 0 ? Math.round((stats.ok / seconds) * 10) / 10 : 0;
    for (const kind of OP_KINDS) {
      const sorted = inMinute
        .filter((s) => s.kind === kind)
        .map((s) => s.latencyMs)
        .sort((a, b) => a - b);
      if (sorted.length === 0) continue;
      stats.p50Ms[kind] = percentile(sorted, 50);
      stats.p99Ms[kind] = percentile(sorted, 99);
    }
    out.push(stats);
  }
  return out;
}

/** Resident set size of a process in MiB (Linux /proc; `ps` elsewhere); undefined once it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    if (kb) return Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    /* no /proc: try ps */
  }
  try {
    const kb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return kb > 0 ? Math.round((kb / 1024) * 10) / 10 : undefined;
  } catch {
    return undefined;
  }
}

/** [seconds since the soak started, MiB] per service */
export type RssSeries = Record<string, Array<[number, number]>>;

export class RssSampler {
  readonly series: RssSeries = {};
  private timer?: NodeJS.Timeout;
  private t0 = 0;

  constructor(private readonly pids: Record<string, number>) {}

  sample(): void {
    const t = Math.round((performance.now() - this.t0) / 100) / 10;
    for (const [name, pid] of Object.entries(this.pids)) {
      const mib = rssMiB(pid);
      if (mib !== undefined) (this.series[name] ??= []).push([t, mib]);
    }
  }

  start(intervalSec: number): void {
    this.t0 = performance.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalSec * 1000);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

/** Least squares y = a + b·x. */
export function linearFit(points: Array<[number, number]>): { intercept: number; slope: number } {
  const n = points.length;
  if (n < 2) return { intercept: points[0]?.[1] ?? 0, slope: 0 };
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { intercept: my - slope * mx, slope };
}

export interface MemoryTrend {
  service: string;
  pid: number;
  /** right after the service answered its first health check (before setup and capacity) */
  bootMiB?: number;
  samples: number;
  startMiB: number;
  endMiB: number;
  peakMiB: number;
  /** fitted slope over the whole soak */
  slopeMiBPerMin: number;
  /** fitted slope over the second half only */
  lateSlopeMiBPerMin: number;
  /** growth the whole-run fit predicts over the soak, as % of the fitted start */
  fittedGrowthPct: number;
  growing: boolean;
}

/**
 * A service is flagged when the line fitted through its RSS samples rises by more than `thresholdPct`
 * of its starting value over the soak AND the second half alone still rises at least half as fast:
 * memory that climbs while the process warms up (JIT code, pools, caches filling) and then levels
 * off is not a leak; memory still climbing at the end is.
 */
export function memoryTrend(service: string, pid: number, points: Array<[number, number]>, thresholdPct: number): MemoryTrend {
  const durationMin = points.length > 1 ? (points[points.length - 1][0] - points[0][0]) / 60 : 0;
  const whole = linearFit(points);
  const half = points.length > 1 ? points[0][0] + (points[points.length - 1][0] - points[0][0]) / 2 : 0;
  const late = linearFit(points.filter(([t]) => t >= half));
  const fittedStart = whole.intercept + whole.slope * (points[0]?.[0] ?? 0);
  const perMin = (slopePerSec: number) => Math.round(slopePerSec * 60 * 100) / 100;
  const growthPct = fittedStart > 0 ? ((whole.slope * durationMin * 60) / fittedStart) * 100 : 0;
  const lateGrowthPct = fittedStart > 0 ? ((late.slope * durationMin * 60) / fittedStart) * 100 : 0;
  return {
    service,
    pid,
    samples: points.length,
    startMiB: points[0]?.[1] ?? 0,
    endMiB: points[points.length - 1]?.[1] ?? 0,
    peakMiB: Math.max(0, ...points.map(([, y]) => y)),
    slopeMiBPerMin: perMin(whole.slope),
    lateSlopeMiBPerMin: perMin(late.slope),
    fittedGrowthPct: Math.round(growthPct * 10) / 10,
    growing: growthPct > thresholdPct && lateGrowthPct > thresholdPct / 2,
  };
}

/** A plain table in the style of `printTable` (bench/lib) for rows that are not BenchRows. */
export function formatTable(title: string, header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ') + ' |';
  return [`\n${title}`, line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n') + '\n';
}

export function minuteTable(minutes: MinuteStats[]): string {
  const header = ['min', 'secs', 'load', 'issued', 'ok/s', 'errors', ...OP_KINDS.map((k) => `p99 ${k}`), 'errors by code'];
  const body = minutes.map((m) => [
    String(m.minute),
    String(m.seconds),
    m.load === undefined ? '' : m.load.toFixed(1),
    String(m.issued),
    m.okPerSec.toFixed(1),
    String(m.errors),
    ...OP_KINDS.map((k) => (m.p99Ms[k] === undefined ? '' : m.p99Ms[k]!.toFixed(0))),
    Object.entries(m.errorCodes)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ×${n}`)
      .join(', '),
  ]);
  return formatTable(
    "Soak, per minute (p99 in ms, from the time each operation was due; load: 1-min load average at the minute's end)",
    header,
    body,
  );
}

export function memoryTable(trends: MemoryTrend[], thresholdPct: number): string {
  const header = [
    'service',
    'pid',
    'samples',
    'RSS boot MiB',
    'RSS start MiB',
    'RSS end MiB',
    'peak MiB',
    'slope MiB/min',
    '2nd-half slope',
    'fitted growth',
    'trend',
  ];
  const body = trends.map((t) => [
    t.service,
    String(t.pid),
    String(t.samples),
    t.bootMiB === undefined ? '' : t.bootMiB.toFixed(1),
    t.startMiB.toFixed(1),
    t.endMiB.toFixed(1),
    t.peakMiB.toFixed(1),
    t.slopeMiBPerMin.toFixed(2),
    t.lateSlopeMiBPerMin.toFixed(2),
    `${t.fittedGrowthPct.toFixed(1)} %`,
    t.growing ? 'GROWING' : 'ok',
  ]);
  return formatTable(
    `Resident memory per service during the soak (flagged above ${thresholdPct} % fitted growth that persists)`,
    header,
    body,
  );
}
