import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the header that carries the signature (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`). */
export const SIGNATURE_HEADER = 'Svc-Signature';
/** docs/partners.md "5. Webhooks": a delivery older than 5 minutes is rejected (replay protection). */
export const DEFAULT_TOLERANCE_SEC = 300;

export type RawBody = string | Uint8Array;

/** Why `verify` rejected a delivery; stable strings a receiver can log or return. */
export type VerifyFailure = 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature' | 'no_secret';

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** maximum age (and future skew) of `t`, in seconds; default 300 */
  toleranceSec?: number;
  /** the current time: a Date, or Unix seconds; default the system clock */
  now?: Date | number;
}

/**
 * v1 = lowercase hex HMAC-SHA256, keyed with the webhook secret, over `<t>.<rawBody>`.
 * The raw body is hashed as bytes: a re-serialised JSON object would not match.
 */
export function sign(secret: string, rawBody: RawBody, t: number): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new TypeError('t must be Unix time in whole seconds');
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/**
 * The full header value for a delivery signed at `t`: one `v1=` per secret, so that during a secret
 * rotation a receiver that still knows only the previous secret keeps verifying.
 */
export function signatureHeader(secrets: readonly string[], rawBody: RawBody, t: number): string {
  if (secrets.length === 0) throw new TypeError('at least one secret is required');
  return [`t=${t}`, ...secrets.map((s) => `v1=${sign(s, rawBody, t)}`)].join(',');
}

export interface ParsedSignatureHeader {
  timestamp: number;
  v1: string[];
}

/** Parses `t=…,v1=…[,v1=…]`; unknown schemes (a future v2) are ignored. Returns null when malformed. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | null {
  let timestamp: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (/^[0-9a-fA-F]{64}$/.test(value)) v1.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || v1.length === 0) return null;
  return { timestamp, v1 };
}

function nowSeconds(now: Date | number | undefined): number {
  if (now === undefined) return Math.floor(Date.now() / 1000);
  return now instanceof Date ? Math.floor(now.getTime() / 1000) : Math.floor(now);
}

/**
 * Checks a delivery: the header parses, `t` lies within the tolerance of now (both ways, so a
 * signature made with a fast clock cannot be replayed for longer), and one `v1=` entry equals the
 * HMAC of one of `secrets` (constant-time comparison). Pass several secrets while rotating.
 */
export function verify(
  header: string | string[] | undefined | null,
  rawBody: RawBody,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).filter((s) => s.length > 0);
  if (keys.length === 0) return { ok: false, reason: 'no_secret' };
  if (Array.isArray(header)) header = header.length === 1 ? header[0] : undefined;
  if (typeof header !== 'string' || header.length === 0) return { ok: false, reason: 'missing_header' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };

  const tolerance = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (Math.abs(nowSeconds(options.now) - parsed.timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  let matched = false;
  for (const key of keys) {
    const expected = Buffer.from(sign(key, rawBody, parsed.timestamp), 'hex');
    for (const candidate of parsed.v1) {
      // Every pair is compared (no early exit), each comparison in constant time.
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
    }
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'no_matching_signature' };
}
