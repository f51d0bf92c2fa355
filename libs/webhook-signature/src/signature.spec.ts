import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { parseSignatureHeader, sign, signatureHeader, verify } from './signature';

const SECRET = 'whsec_test_current';
const OLD_SECRET = 'whsec_test_previous';
const BODY =
  '{"event":"order.paid","id":"0b5c2c7e-8f5d-4a1e-9f3a-2d1c0b9a8e7f","createdAt":"2026-11-22T02:00:00.000Z","data":{"amount":1500}}';
const T = 1_800_000_000;

describe('webhook signature', () => {
  it('signs "<t>.<rawBody>" with HMAC-SHA256 as lowercase hex (independent node:crypto check)', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(sign(SECRET, BODY, T)).toBe(expected);
    expect(sign(SECRET, Buffer.from(BODY), T)).toBe(expected);
    expect(signatureHeader([SECRET], BODY, T)).toBe(`t=${T},v1=${expected}`);
  });

  it('accepts a fresh, correctly signed delivery', () => {
    expect(verify(signatureHeader([SECRET], BODY, T), BODY, SECRET, { now: T + 10 })).toEqual({ ok: true, timestamp: T });
    expect(verify(signatureHeader([SECRET], BODY, T), Buffer.from(BODY), [SECRET], { now: new Date((T + 299) * 1000) }).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    const header = signatureHeader([SECRET], BODY, T);
    expect(verify(header, BODY.replace('1500', '1501'), SECRET, { now: T })).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verify(header, `${BODY} `, SECRET, { now: T })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('rejects a signature made with another secret', () => {
    expect(verify(signatureHeader(['whsec_attacker'], BODY, T), BODY, SECRET, { now: T })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects a missing or malformed header', () => {
    expect(verify(undefined, BODY, SECRET, { now: T })).toEqual({ ok: false, reason: 'missing_header' });
    expect(verify('', BODY, SECRET, { now: T })).toEqual({ ok: false, reason: 'missing_header' });
    expect(verify(['a', 'b'], BODY, SECRET, { now: T })).toEqual({ ok: false, reason: 'missing_header' });
    for (const bad of [
      'garbage',
      `t=${T}`,
      `v1=${sign(SECRET, BODY, T)}`,
      `t=abc,v1=${sign(SECRET, BODY, T)}`,
      `t=${T},t=${T},v1=${sign(SECRET, BODY, T)}`,
      `t=${T},v1=xyz`,
    ]) {
      expect(verify(bad, BODY, SECRET, { now: T })).toEqual({ ok: false, reason: 'malformed_header' });
    }
  });

  it('rejects a timestamp 6 minutes old, and one 6 minutes ahead; accepts exactly 5 minutes', () => {
    const header = signatureHeader([SECRET], BODY, T);
    expect(verify(header, BODY, SECRET, { now: T + 360 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify(header, BODY, SECRET, { now: T - 360 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify(header, BODY, SECRET, { now: T + 300 }).ok).toBe(true);
    expect(verify(header, BODY, SECRET, { now: T + 301 }).ok).toBe(false);
    expect(verify(header, BODY, SECRET, { now: T + 500, toleranceSec: 600 }).ok).toBe(true);
  });

  it('rejects a timestamp replaced in a captured header (t is part of the signed string)', () => {
    const header = signatureHeader([SECRET], BODY, T).replace(`t=${T}`, `t=${T + 600}`);
    expect(verify(header, BODY, SECRET, { now: T + 600 })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('during a rotation carries one v1 per secret, and either secret verifies', () => {
    const header = signatureHeader([SECRET, OLD_SECRET], BODY, T);
    expect(parseSignatureHeader(header)?.v1).toHaveLength(2);
    expect(verify(header, BODY, SECRET, { now: T }).ok).toBe(true);
    expect(verify(header, BODY, OLD_SECRET, { now: T }).ok).toBe(true);
    expect(verify(header, BODY, [OLD_SECRET, SECRET], { now: T }).ok).toBe(true);
    expect(verify(signatureHeader([SECRET], BODY, T), BODY, OLD_SECRET, { now: T }).ok).toBe(false);
  });

  it('ignores unknown schemes and accepts spaces after commas', () => {
    const v1 = sign(SECRET, BODY, T);
    expect(verify(`t=${T}, v0=deadbeef, v1=${v1}`, BODY, SECRET, { now: T }).ok).toBe(true);
  });

  it('refuses to verify without a secret', () => {
    expect(verify(signatureHeader([SECRET], BODY, T), BODY, [], { now: T })).toEqual({ ok: false, reason: 'no_secret' });
    expect(verify(signatureHeader([SECRET], BODY, T), BODY, '', { now: T })).toEqual({ ok: false, reason: 'no_secret' });
  });

  it('property: verifies its own signature and rejects any single-byte change of the body', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.uint8Array({ minLength: 1, maxLength: 256 }), fc.nat(), (secret, body, pos) => {
        const header = signatureHeader([secret], body, T);
        expect(verify(header, body, secret, { now: T }).ok).toBe(true);
        const changed = Uint8Array.from(body);
        changed[pos % changed.length] ^= 0x01;
        expect(verify(header, changed, secret, { now: T }).ok).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
