import fc from 'fast-check';
import { AppException } from '@mm/errors';
import { MAX_JSON_DEPTH, jsonNestingExceeds, parseJsonBody } from './json-body';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof AppException ? error.code : `not an AppException: ${String(error)}`;
  }
};

/** A value nested exactly `depth` objects/arrays deep. */
const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('JSON request bodies', () => {
  it('reads no bytes as no body, and parses JSON as JSON.parse does', () => {
    expect(parseJsonBody(Buffer.alloc(0))).toBeUndefined();
    expect(parseJsonBody('{"amount":100,"items":[{"x":"y"}]}')).toEqual({ amount: 100, items: [{ x: 'y' }] });
    expect(parseJsonBody('null')).toBeNull();
  });

  it('reads a body that starts with a UTF-8 byte order mark (.NET and PowerShell send one) as the JSON after it', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(parseJsonBody(Buffer.concat([bom, Buffer.from('{"amount":100}')]))).toEqual({ amount: 100 });
    expect(parseJsonBody('\uFEFF[1,2]')).toEqual([1, 2]);
    // only one leading mark is the encoding's; anything else is still text JSON refuses
    expect(codeOf(() => parseJsonBody('\uFEFF\uFEFF{}'))).toBe('MALFORMED_JSON');
    expect(codeOf(() => parseJsonBody('{"a":1}\uFEFF'))).toBe('MALFORMED_JSON');
    // a mark and nothing else is an empty body sent by such a client
    expect(parseJsonBody(bom)).toBeUndefined();
  });

  it('accepts nesting up to the limit and refuses one level more with JSON_TOO_DEEP', () => {
    expect(parseJsonBody(JSON.stringify(nested(MAX_JSON_DEPTH)))).toEqual(nested(MAX_JSON_DEPTH));
    expect(codeOf(() => parseJsonBody(JSON.stringify(nested(MAX_JSON_DEPTH + 1))))).toBe('JSON_TOO_DEEP');
  });

  it('refuses a body nested a million levels without recursing (no RangeError)', () => {
    const depth = 1_000_000;
    expect(codeOf(() => parseJsonBody(`${'['.repeat(depth)}${']'.repeat(depth)}`))).toBe('JSON_TOO_DEEP');
    // unterminated: still decided by depth, before the parser sees it
    expect(codeOf(() => parseJsonBody('{"a":'.repeat(depth)))).toBe('JSON_TOO_DEEP');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ note: `${'{['.repeat(500)}\\"]}"`, deeper: nested(3) });
    expect(jsonNestingExceeds(text, 5)).toBe(false);
    expect(parseJsonBody(text)).toEqual(JSON.parse(text));
  });

  it('measures the depth JSON.parse sees, for any JSON value', () => {
    const depthOf = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonNestingExceeds(text, limit)).toBe(depthOf(JSON.parse(text)) > limit);
      }),
    );
  });

  it.each([
    '{"__proto__":{"admin":true}}',
    '{"a":[{"b":{"__proto__":{"admin":true}}}]}',
    '{"\\u005f_proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
  ])('refuses %s with FORBIDDEN_JSON_KEY', (text) => {
    expect(codeOf(() => parseJsonBody(text))).toBe('FORBIDDEN_JSON_KEY');
  });

  it('keeps a plain "constructor" field, and calls broken JSON MALFORMED_JSON', () => {
    expect(parseJsonBody('{"constructor":"Acme Ltd"}')).toEqual({ constructor: 'Acme Ltd' });
    expect(codeOf(() => parseJsonBody('{"a":'))).toBe('MALFORMED_JSON');
    expect(codeOf(() => parseJsonBody(' '))).toBe('MALFORMED_JSON');
  });
});
