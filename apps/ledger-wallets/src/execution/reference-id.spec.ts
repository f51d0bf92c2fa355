import { REFERENCE_ID_PATTERN, newReferenceId } from './reference-id';

describe('reference id', () => {
  it('has the prefix, TX, the UTC date and 7 characters', () => {
    const ref = newReferenceId('MMP', new Date('2026-03-09T23:59:00Z'));
    expect(ref).toMatch(REFERENCE_ID_PATTERN);
    expect(ref.slice(0, 11)).toBe('MMPTX260309');
    expect(ref).toHaveLength(18);
  });

  it('is random in its tail', () => {
    const refs = new Set(Array.from({ length: 200 }, () => newReferenceId('MMP')));
    expect(refs.size).toBe(200);
  });
});
