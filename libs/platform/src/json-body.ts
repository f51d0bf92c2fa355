import { AppException } from '@mm/errors';

/**
 * The deepest nesting of objects and arrays a JSON request body may have. No request of the
 * platform needs more than a few levels; the margin is for partners' free-form metadata. The limit
 * exists because everything after the parser (the storable-text pipe, class-transformer, the
 * validators) walks bodies recursively: a body nested thousands of levels would exhaust the stack
 * as a 500, before authentication, for any anonymous caller.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * True when the JSON text opens more than `limit` objects or arrays inside one another. One pass
 * over the text with a counter, no recursion and no allocation, so it is safe to run on any input
 * before parsing it; brackets inside strings (escapes included) do not count. Malformed text is
 * left to the parser: this only answers "too deep or not".
 */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/**
 * A JSON request body as every service reads it:
 * - a leading UTF-8 byte order mark is dropped;
 * - no bytes at all is no body (`undefined`): many HTTP client wrappers send
 *   `Content-Type: application/json` on every request, body or not, and a route that takes no body
 *   (or an optional one) must not fail for it; a route that needs one says which fields are missing;
 * - nesting deeper than MAX_JSON_DEPTH is 400 JSON_TOO_DEEP, decided before parsing;
 * - a `__proto__` key, or a `constructor` holding `prototype`, is 400 FORBIDDEN_JSON_KEY: copied
 *   onto an object it would change that object's prototype (Fastify's parser refuses the same keys,
 *   but calls the body invalid JSON);
 * - anything else JSON.parse refuses is 400 MALFORMED_JSON.
 */
export function parseJsonBody(raw: Buffer | string): unknown {
  const decoded = typeof raw === 'string' ? raw : raw.toString('utf8');
  // A leading byte order mark belongs to the encoding, not to the JSON: .NET and PowerShell clients
  // write one, Fastify's parser dropped it, and JSON.parse calls it a syntax error.
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (text.length === 0) return undefined;
  if (jsonNestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new AppException('JSON_TOO_DEEP', `The request body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppException('MALFORMED_JSON');
  }
  if (holdsPrototypeKey(parsed)) throw new AppException('FORBIDDEN_JSON_KEY');
  return parsed;
}

/**
 * Whether a parsed body holds an own `__proto__` key, or a `constructor` object with a `prototype`
 * (the two keys Fastify's parser refuses), at any depth. Breadth-first with a queue rather than
 * recursion, and always run: a key spelled with escapes (`"\u005f_proto__"`) is the same key once parsed.
 */
function holdsPrototypeKey(parsed: unknown): boolean {
  const queue: unknown[] = [parsed];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at];
    if (typeof node !== 'object' || node === null) continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    const ctor = (node as { constructor?: unknown }).constructor;
    if (Object.hasOwn(node, 'constructor') && typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) return true;
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) queue.push(value);
  }
  return false;
}
