import { AppException } from '@mm/errors';
import { StorableTextPipe } from './storable-text.pipe';

const pipe = new StorableTextPipe();
const body = { type: 'body' as const, data: undefined };

/** The field the pipe names for `value`, or undefined when it lets it through. */
function refusedField(value: unknown): string | undefined {
  try {
    pipe.transform(value, body);
    return undefined;
  } catch (error) {
    if (!(error instanceof AppException)) throw error;
    return error.errors?.[0]?.field;
  }
}

describe('StorableTextPipe', () => {
  it('names the first unstorable string, value or key, in document order', () => {
    expect(refusedField({ a: 'ok', b: ['x', 'y\u0000'], c: 'z\u0000' })).toBe('b[1]');
    expect(refusedField({ a: { ['k\u0000']: 'v' }, b: '\ud800' })).toBe('a.k\u0000');
    expect(refusedField({ a: 'fine', b: { c: ['\udc00'] } })).toBe('b.c[0]');
    expect(refusedField({ name: 'Ada 👩🏽‍💻', list: [1, null, true] })).toBeUndefined();
  });

  it('walks a value nested far deeper than the call stack allows, without a RangeError', () => {
    let deep: unknown = 'bad\u0000';
    for (let i = 0; i < 50_000; i++) deep = { a: deep };
    expect(refusedField(deep)).toBe(`${'a.'.repeat(49_999)}a`);
    let clean: unknown = 'fine';
    for (let i = 0; i < 50_000; i++) clean = [clean];
    expect(refusedField(clean)).toBeUndefined();
  });
});
