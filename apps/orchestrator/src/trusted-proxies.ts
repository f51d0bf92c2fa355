import { isIP } from 'node:net';

/** The named ranges Fastify's trustProxy (@fastify/proxy-addr) understands besides addresses and CIDRs. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUSTED_PROXIES as written: a comma list, blanks dropped. */
export function parseTrustedProxies(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * What is wrong with a TRUSTED_PROXIES list, for the boot error; undefined when nothing is. Checked
 * here because Fastify would otherwise throw its own TypeError at start, without naming the variable.
 */
export function trustedProxiesProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be a comma-separated list of addresses or CIDRs';
  const bad = value.findIndex((entry) => typeof entry !== 'string' || !isProxyEntry(entry));
  if (bad === -1) return undefined;
  return `entry ${bad + 1} is neither an IP address, a CIDR (10.0.0.0/8) nor one of ${[...NAMED_RANGES].join(', ')}`;
}

function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}
