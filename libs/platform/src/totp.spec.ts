import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode, totpStep } from './totp';

/** RFC 6238 appendix B: the seeds of the three HMACs and the 8-digit codes at each time. */
const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at T = %i s the appendix B codes come out (SHA-1 %s, SHA-256 %s, SHA-512 %s)', (seconds, sha1, sha256, sha512) => {
    const step = totpStep(seconds * 1000);
    expect(hotp(SEEDS.sha1, step, 8, 'sha1')).toBe(sha1);
    expect(hotp(SEEDS.sha256, step, 8, 'sha256')).toBe(sha256);
    expect(hotp(SEEDS.sha512, step, 8, 'sha512')).toBe(sha512);
  });

  it('the 6-digit code is the last six digits of the 8-digit one (RFC 4226 truncation)', () => {
    for (const [seconds, sha1] of VECTORS) expect(totpCode(SEEDS.sha1, totpStep(seconds * 1000))).toBe(sha1.slice(2));
  });

  it('accepts the code of the step before, the current one and the one after, and no other', () => {
    const at = 1_111_111_111_000;
    const now = totpStep(at);
    for (const offset of [-1, 0, 1]) expect(matchTotp(SEEDS.sha1, totpCode(SEEDS.sha1, now + offset), at)).toBe(now + offset);
    for (const offset of [-3, -2, 2, 3]) expect(matchTotp(SEEDS.sha1, totpCode(SEEDS.sha1, now + offset), at)).toBeUndefined();
  });

  it('refuses what is not six digits', () => {
    const at = 59_000;
    const right = totpCode(SEEDS.sha1, totpStep(at));
    expect(matchTotp(SEEDS.sha1, right, at)).toBe(1);
    for (const bad of ['', '12345', '1234567', ` ${right.slice(1)}`, 'abcdef']) expect(matchTotp(SEEDS.sha1, bad, at)).toBeUndefined();
  });

  it('base32 round-trips and reads the RFC 4648 test vectors', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI======')?.toString()).toBe('foobar');
    expect(base32Decode('mzxw 6ytb-oi')?.toString()).toBe('foobar');
    expect(base32Decode('not base32!')).toBeUndefined();
    const secret = Buffer.from('0123456789abcdef0123', 'hex');
    expect(base32Decode(base32Encode(secret))).toEqual(secret);
  });

  it('writes the otpauth URI authenticator apps read', () => {
    expect(otpauthUri('MZXW6YTBOI', '+237699000001', 'Mobile Money')).toBe(
      'otpauth://totp/Mobile%20Money:%2B237699000001?secret=MZXW6YTBOI&issuer=Mobile+Money&algorithm=SHA1&digits=6&period=30',
    );
  });
});
