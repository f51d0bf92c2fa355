import { idempotencyKeyOf } from './registration.controller';

describe('registration idempotency key', () => {
  it('comes from the header (either spelling) or the body, and both must agree', () => {
    expect(idempotencyKeyOf({ 'idempotency-key': 'k1' }, undefined)).toBe('k1');
    expect(idempotencyKeyOf({ 'x-idempotency-key': 'k2' }, undefined)).toBe('k2');
    expect(idempotencyKeyOf({}, 'k3')).toBe('k3');
    expect(idempotencyKeyOf({ 'idempotency-key': 'k4' }, 'k4')).toBe('k4');
    expect(idempotencyKeyOf({}, undefined)).toBeUndefined();
    expect(() => idempotencyKeyOf({ 'idempotency-key': 'k5' }, 'other')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(() => idempotencyKeyOf({ 'idempotency-key': 'with space' }, undefined)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
    expect(() => idempotencyKeyOf({ 'idempotency-key': 'x'.repeat(201) }, undefined)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});
