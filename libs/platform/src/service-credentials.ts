import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SERVICE_NAMES, type ServiceName } from '@mm/contracts';

/**
 * Service credentials (docs/service-credentials.md): every caller has its own static key, which it
 * presents in X-Service-Key; a callee stores only SHA-256 digests of the keys it accepts
 * (INTERNAL_TRUSTED_CALLERS), and a table per callee says which caller may use which internal route.
 */

/** People and scripts acting as operators (corrections, integrity checks, webhook replays). */
export const OPS_CALLER = 'ops';

export type CallerName = ServiceName | typeof OPS_CALLER;

export const CALLER_NAMES: readonly CallerName[] = [...SERVICE_NAMES, OPS_CALLER];

export function isCallerName(value: string): value is CallerName {
  return (CALLER_NAMES as readonly string[]).includes(value);
}

/**
 * The caller graph: who calls each service at all, read from the clients that exist (grep
 * `InternalHttpClient`) and from what operators do. Each app's route table
 * (`apps/<service>/src/internal-callers.ts`) says route by route who may call; a unit test per app
 * keeps the table's callers equal to this list, so the graph can be reviewed on one screen.
 */
export const SERVICE_CALLERS: Readonly<Record<ServiceName, readonly CallerName[]>> = {
  // the merchant directory on the internal listener
  orchestrator: ['partners'],
  // user lifecycle, PIN reset, session introspection: the orchestrator's identity clients and access guard
  auth: ['orchestrator'],
  // QR lookups and the back office's partner administration
  partners: ['orchestrator'],
  // money moves (orchestrator) and the operators' corrections, audits and integrity checks
  'ledger-wallets': ['orchestrator', OPS_CALLER],
  // endpoint registration and secret rotation (partners); delivery logs, resends, recovery and
  // re-enabling for staff (the orchestrator's back office), the same for operators' break-glass
  'webhook-dispatcher': ['partners', 'orchestrator', OPS_CALLER],
};

/**
 * A service's allow-list: `"<METHOD> <route pattern>"` (the pattern exactly as the app registers it,
 * global prefix included, e.g. `POST /v1/internal/intents/:id/transition`) → the callers allowed.
 * A guarded route that is not in the table is refused to everyone.
 */
export type InternalCallerTable = Readonly<Record<string, readonly CallerName[]>>;

export const TRUSTED_CALLERS_VARIABLE = 'INTERNAL_TRUSTED_CALLERS';

/** Two digests per caller: the current key and the next one, valid together while a key rotates. */
export const MAX_DIGESTS_PER_CALLER = 2;

const DIGEST_RE = /^[0-9a-f]{64}$/;

/** Lower-case hex SHA-256 of a key: what a callee stores instead of the key. */
export function serviceKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random key (256 bits, hex): what `node tools/service-key.mjs` prints. */
export function newServiceKey(): string {
  return randomBytes(32).toString('hex');
}

export class TrustedCallersError extends Error {}

/** The recognised callers of one service: name → the digests (1 or 2) of its valid keys. */
export type TrustedCallers = ReadonlyMap<CallerName, readonly Buffer[]>;

/**
 * Parses `caller:digest[:digest],caller:digest,…` (commas or white space between entries). Errors
 * say which entry is wrong and why, never what it contains.
 */
export function parseTrustedCallers(value: string): TrustedCallers {
  const callers = new Map<CallerName, Buffer[]>();
  const seen = new Set<string>();
  const entries = value.split(/[\s,]+/).filter((e) => e.length > 0);
  entries.forEach((entry, index) => {
    const where = `entry ${index + 1}`;
    const [name, ...digests] = entry.split(':');
    if (!isCallerName(name)) throw new TrustedCallersError(`${where}: unknown caller name (expected one of ${CALLER_NAMES.join(', ')})`);
    if (callers.has(name)) throw new TrustedCallersError(`${where}: a caller appears twice (put both digests in one entry)`);
    if (digests.length === 0 || digests.length > MAX_DIGESTS_PER_CALLER) {
      throw new TrustedCallersError(`${where}: expected 1 or ${MAX_DIGESTS_PER_CALLER} digests after the caller name`);
    }
    const buffers = digests.map((raw) => {
      const digest = raw.toLowerCase();
      if (!DIGEST_RE.test(digest)) throw new TrustedCallersError(`${where}: a digest is not 64 hexadecimal characters (SHA-256)`);
      if (seen.has(digest)) throw new TrustedCallersError(`${where}: a digest is listed twice (one key must identify one caller)`);
      seen.add(digest);
      return Buffer.from(digest, 'hex');
    });
    callers.set(name, buffers);
  });
  return callers;
}

/** What is wrong with a value of INTERNAL_TRUSTED_CALLERS (undefined: nothing). Never quotes the value. */
export function trustedCallersProblem(value: unknown, nodeEnv: string): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.trim() === '') {
    return nodeEnv === 'production' ? 'is required in production (caller:sha256[:sha256],…; see docs/service-credentials.md)' : undefined;
  }
  try {
    parseTrustedCallers(value);
    return undefined;
  } catch (error) {
    if (error instanceof TrustedCallersError) return `is malformed: ${error.message}`;
    throw error;
  }
}

/** The inverse of parseTrustedCallers, from hex digests. */
export function formatTrustedCallers(digests: Partial<Record<CallerName, readonly string[]>>): string {
  return CALLER_NAMES.filter((name) => (digests[name]?.length ?? 0) > 0)
    .map((name) => `${name}:${digests[name]!.join(':')}`)
    .join(',');
}

/**
 * The caller whose key this is, or undefined. One hash, then every digest is compared in constant
 * time without stopping at a match, so the time taken says nothing about which entry matched.
 */
export function identifyCaller(trusted: TrustedCallers, presentedKey: string): CallerName | undefined {
  const presented = createHash('sha256').update(presentedKey, 'utf8').digest();
  let found: CallerName | undefined;
  for (const [name, digests] of trusted) {
    for (const digest of digests) {
      if (timingSafeEqual(presented, digest) && found === undefined) found = name;
    }
  }
  return found;
}

/** One key per caller: what a starter (npm start, a test file, a benchmark) hands out for a run. */
export type ServiceKeys = Readonly<Record<CallerName, string>>;

/** A fresh random key for every caller. */
export function generateServiceKeys(): ServiceKeys {
  return Object.fromEntries(CALLER_NAMES.map((name) => [name, newServiceKey()])) as Record<CallerName, string>;
}

/**
 * Every caller's key derived from one secret seed (HMAC-SHA256 per caller name), so two programs
 * given the same seed agree without passing keys around: `npm start` and `npm run demo` (which needs
 * the operators' key). Knowing one derived key reveals neither the seed nor another key.
 */
export function deriveServiceKeys(seed: string): ServiceKeys {
  if (seed.length < 32) throw new Error('the service key seed must be at least 32 characters');
  return Object.fromEntries(
    CALLER_NAMES.map((name) => [name, createHmac('sha256', seed).update(`mm-service-key:v1:${name}`).digest('hex')]),
  ) as Record<CallerName, string>;
}

/** Every caller but the service itself: whom a service can recognise (and so name in its logs). */
export function recognisedCallers(service: ServiceName): CallerName[] {
  return CALLER_NAMES.filter((caller) => caller !== service);
}

export interface ServiceCredentialEnv {
  INTERNAL_SERVICE_KEY: string;
  INTERNAL_TRUSTED_CALLERS: string;
}

/**
 * The credential variables of one service: its own outbound key, and the digests of every other
 * caller's key. Recognising a caller grants nothing by itself (the route table decides); it lets a
 * wrong caller be told apart from a stranger: 403 SERVICE_NOT_ALLOWED naming the caller in the log,
 * rather than an anonymous 401. `previous` keeps a caller's old key valid beside its new one: the
 * overlap of a rotation.
 */
export function serviceCredentialEnv(
  service: ServiceName,
  keys: ServiceKeys,
  options: { previous?: Partial<Record<CallerName, string>> } = {},
): ServiceCredentialEnv {
  const digests: Partial<Record<CallerName, string[]>> = {};
  for (const caller of recognisedCallers(service)) {
    const old = options.previous?.[caller];
    digests[caller] = [serviceKeyDigest(keys[caller]), ...(old ? [serviceKeyDigest(old)] : [])];
  }
  return { INTERNAL_SERVICE_KEY: keys[service], INTERNAL_TRUSTED_CALLERS: formatTrustedCallers(digests) };
}
