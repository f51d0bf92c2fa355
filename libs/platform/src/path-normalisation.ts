/**
 * What a request path means, independently of how it was spelled: the decision "may this reach an
 * internal route" must not depend on percent-encoding, letter case, doubled slashes or dot segments,
 * because the router, the proxy (which resolves `..` when it builds the upstream URL) and the
 * upstream service may each read the same bytes differently.
 */
export type NormalisedPath =
  | { ok: true; /** decoded, lower-case, single slashes, no trailing slash */ path: string }
  | { ok: false; reason: 'undecodable' | 'dot-segment' | 'backslash' };

/** Decoding rounds before a path that still decodes further is refused (double, triple encoding). */
const MAX_DECODE_ROUNDS = 3;

/**
 * The path part of a request URL, percent-decoded until stable (so `%2569` counts as `i`), with
 * doubled slashes collapsed, a trailing slash dropped and letters lower-cased. Paths no client
 * sends in good faith are refused rather than interpreted: a `.` or `..` segment (raw or encoded;
 * browsers and HTTP clients resolve them before sending), a backslash (some servers treat it as a
 * separator), or an escape that does not decode.
 */
export function normaliseRequestPath(url: string): NormalisedPath {
  const raw = url.split('?')[0].split('#')[0];
  let decoded = raw;
  for (let round = 0; ; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return { ok: false, reason: 'undecodable' };
    }
    if (next === decoded) break;
    if (round >= MAX_DECODE_ROUNDS) return { ok: false, reason: 'undecodable' };
    decoded = next;
  }
  if (decoded.includes('\\')) return { ok: false, reason: 'backslash' };
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) return { ok: false, reason: 'dot-segment' };
  return { ok: true, path: `/${segments.join('/')}`.toLowerCase() };
}

/** True when `path` (normalised) is `prefix` itself or lies under it. */
export function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
