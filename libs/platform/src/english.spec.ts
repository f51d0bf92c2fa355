import { withArticle } from './english';

describe('withArticle', () => {
  it('writes "an" before a vowel and "a" before a consonant, capitalised at the start of a sentence', () => {
    expect(['active', 'expired', 'unspecified', 'pending', 'revoked', 'loopback', 'link-local'].map((w) => withArticle(w))).toEqual([
      'an active',
      'an expired',
      'an unspecified',
      'a pending',
      'a revoked',
      'a loopback',
      'a link-local',
    ]);
    expect(withArticle('active', true)).toBe('An active');
    expect(withArticle('paid', true)).toBe('A paid');
    expect(withArticle('Expired', true)).toBe('An Expired');
  });
});
