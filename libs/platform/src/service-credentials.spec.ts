import { createHash } from 'node:crypto';
import { SERVICE_NAMES } from '@mm/contracts';
import { BaseConfig, ConfigValidationError, loadConfig } from './config';
import {
  CALLER_NAMES,
  SERVICE_CALLERS,
  TrustedCallersError,
  deriveServiceKeys,
  formatTrustedCallers,
  generateServiceKeys,
  identifyCaller,
  parseTrustedCallers,
  serviceCredentialEnv,
  serviceKeyDigest,
} from './service-credentials';

const sha = (key: string) => createHash('sha256').update(key).digest('hex');
const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const KEY_C = 'c'.repeat(64);

/** The message loadConfig throws for this environment ('' when it loads). */
function configError(env: Record<string, string>): string {
  try {
    loadConfig(BaseConfig, { INTERNAL_SERVICE_KEY: 'k'.repeat(32), ...env });
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigValidationError);
    return (error as Error).message;
  }
}

describe('INTERNAL_TRUSTED_CALLERS', () => {
  it('parses callers with one or two digests, separated by commas or white space, any hex case', () => {
    const value = `orchestrator:${sha(KEY_A)}:${sha(KEY_B).toUpperCase()}, ops:${sha(KEY_C)}\n partners:${sha('p'.repeat(40))}`;
    const trusted = parseTrustedCallers(value);
    expect([...trusted.keys()]).toEqual(['orchestrator', 'ops', 'partners']);
    expect(trusted.get('orchestrator')).toHaveLength(2);
    expect(identifyCaller(trusted, KEY_A)).toBe('orchestrator');
    expect(identifyCaller(trusted, KEY_B)).toBe('orchestrator');
    expect(identifyCaller(trusted, KEY_C)).toBe('ops');
    expect(identifyCaller(trusted, 'd'.repeat(64))).toBeUndefined();
    expect(identifyCaller(trusted, '')).toBeUndefined();
    expect(identifyCaller(parseTrustedCallers(''), KEY_A)).toBeUndefined();
  });

  it('round-trips through formatTrustedCallers', () => {
    const value = formatTrustedCallers({ ops: [sha(KEY_C)], orchestrator: [sha(KEY_A), sha(KEY_B)] });
    expect(value).toBe(`orchestrator:${sha(KEY_A)}:${sha(KEY_B)},ops:${sha(KEY_C)}`);
    expect(identifyCaller(parseTrustedCallers(value), KEY_B)).toBe('orchestrator');
  });

  const bad: Array<[string, string, RegExp]> = [
    ['an unknown caller', `payments:${sha(KEY_A)}`, /entry 1: unknown caller name/],
    ['a caller without digest', 'orchestrator', /entry 1: expected 1 or 2 digests/],
    ['an empty digest', 'orchestrator:', /entry 1: a digest is not 64 hexadecimal/],
    ['three digests', `ops:${sha(KEY_A)}:${sha(KEY_B)}:${sha(KEY_C)}`, /entry 1: expected 1 or 2 digests/],
    ['a raw key instead of its digest', `ops:${KEY_A.slice(0, 40)}`, /entry 1: a digest is not 64 hexadecimal/],
    ['a caller listed twice', `ops:${sha(KEY_A)},ops:${sha(KEY_B)}`, /entry 2: a caller appears twice/],
    ['one key for two callers', `ops:${sha(KEY_A)},partners:${sha(KEY_A)}`, /entry 2: a digest is listed twice/],
  ];

  it.each(bad)('refuses %s with a message that never quotes the value', (_case, value, message) => {
    expect(() => parseTrustedCallers(value)).toThrow(TrustedCallersError);
    expect(() => parseTrustedCallers(value)).toThrow(message);
    const error = configError({ INTERNAL_TRUSTED_CALLERS: value });
    expect(error).toMatch(/INTERNAL_TRUSTED_CALLERS is malformed/);
    expect(error).toMatch(message);
    for (const part of value.split(/[:,\s]+/).filter((p) => p.length >= 8)) expect(error).not.toContain(part);
    expect(error).not.toContain(value);
  });

  it('is optional in development and test, required in production', () => {
    expect(configError({})).toBe('');
    expect(configError({ NODE_ENV: 'test' })).toBe('');
    expect(configError({ NODE_ENV: 'production' })).toMatch(/INTERNAL_TRUSTED_CALLERS is required in production/);
    expect(configError({ NODE_ENV: 'production', INTERNAL_TRUSTED_CALLERS: '  ' })).toMatch(/required in production/);
    expect(configError({ NODE_ENV: 'production', INTERNAL_TRUSTED_CALLERS: `ops:${sha(KEY_A)}` })).toBe('');
  });
});

describe('service keys and the environment of a service', () => {
  it('derives one distinct key per caller from a seed, the same for everyone holding the seed', () => {
    const seed = 's'.repeat(40);
    const keys = deriveServiceKeys(seed);
    expect(Object.keys(keys).sort()).toEqual([...CALLER_NAMES].sort());
    expect(new Set(Object.values(keys)).size).toBe(CALLER_NAMES.length);
    for (const key of Object.values(keys)) expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveServiceKeys(seed)).toEqual(keys);
    // a documented contract (docs/service-credentials.md): tools compute the operators' key with
    // `printf 'mm-service-key:v1:ops' | openssl dgst -sha256 -hmac "$SEED"`, so it never changes
    expect(keys.ops).toBe('135e635d6d6f2b38ac8577c81b16cb3383a0e487b7f0c9b0b3a9f52af7df054b');
    expect(deriveServiceKeys('t'.repeat(40)).ops).not.toBe(keys.ops);
    expect(() => deriveServiceKeys('short')).toThrow(/at least 32/);
  });

  it('gives each service its own key and the digests of every other caller, never a key', () => {
    const keys = generateServiceKeys();
    for (const service of SERVICE_NAMES) {
      const env = serviceCredentialEnv(service, keys);
      expect(env.INTERNAL_SERVICE_KEY).toBe(keys[service]);
      const trusted = parseTrustedCallers(env.INTERNAL_TRUSTED_CALLERS);
      expect([...trusted.keys()].sort()).toEqual(CALLER_NAMES.filter((c) => c !== service).sort());
      for (const caller of CALLER_NAMES) {
        // its own key is nobody's credential at itself
        expect(identifyCaller(trusted, keys[caller])).toBe(caller === service ? undefined : caller);
        expect(env.INTERNAL_TRUSTED_CALLERS).not.toContain(keys[caller]);
      }
      // what the service loads
      expect(() => loadConfig(BaseConfig, { ...env, NODE_ENV: 'production' })).not.toThrow();
    }
  });

  it('keeps a previous key valid beside the new one during a rotation', () => {
    const keys = generateServiceKeys();
    const old = generateServiceKeys().orchestrator;
    const env = serviceCredentialEnv('ledger-wallets', keys, { previous: { orchestrator: old } });
    const trusted = parseTrustedCallers(env.INTERNAL_TRUSTED_CALLERS);
    expect(identifyCaller(trusted, keys.orchestrator)).toBe('orchestrator');
    expect(identifyCaller(trusted, old)).toBe('orchestrator');
    expect(serviceKeyDigest(old)).toBe(sha(old));
  });

  it('keeps the caller graph inside the known callers, without self-calls', () => {
    for (const service of SERVICE_NAMES) {
      for (const caller of SERVICE_CALLERS[service]) {
        expect(CALLER_NAMES).toContain(caller);
        expect(caller).not.toBe(service);
      }
    }
  });
});
