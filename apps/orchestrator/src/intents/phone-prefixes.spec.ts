import { normaliseCountryCode } from './phone-prefixes';

describe('normaliseCountryCode', () => {
  it('gives the canonical prefix of a served country, with or without the plus', () => {
    expect(normaliseCountryCode('+237')).toBe('+237');
    expect(normaliseCountryCode('221')).toBe('+221');
  });

  it('a country the platform does not serve, or no string at all, is undefined (never a TypeError)', () => {
    for (const value of ['+33', '', null, undefined, 237, {}]) expect(normaliseCountryCode(value)).toBeUndefined();
  });
});
