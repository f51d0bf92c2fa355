import { canonicalJson, requestHash } from './canonical-hash';

describe('canonical request hash', () => {
  it('sorts keys at every depth, so key order never changes the hash', () => {
    const a = { b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'x' } };
    const b = { a: { c: 'x', d: [1, { y: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}');
    expect(requestHash(a)).toBe(requestHash(b));
  });

  it('ignores PIN, OTP and timestamp fields, wherever they are', () => {
    const base = { amount: 100, nested: { to: 'x' } };
    const noisy = { amount: 100, pin: '1234', otpCode: '999999', timestamp: '2026-01-01', nested: { to: 'x', createdAt: 'now', otp: '1' } };
    expect(requestHash(noisy)).toBe(requestHash(base));
  });

  it('gives a different hash for a different amount or field', () => {
    expect(requestHash({ amount: 100 })).not.toBe(requestHash({ amount: 101 }));
    expect(requestHash({ amount: 100 })).not.toBe(requestHash({ amount: '100' }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ b: 1 }));
  });

  it('leaves undefined members out like JSON does', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });
});
