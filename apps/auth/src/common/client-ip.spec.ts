import { addressBucket } from './client-ip';

describe('addressBucket', () => {
  it('keeps an IPv4 address, also written IPv4-mapped', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::FFFF:cb00:7107')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const bucket = '2001:db8:85a3:0::/64';
    expect(addressBucket('2001:db8:85a3::8a2e:370:7334')).toBe(bucket);
    expect(addressBucket('2001:0DB8:85A3:0000:1111:2222:3333:4444')).toBe(bucket);
    expect(addressBucket('2001:db8:85a3:0:ffff::1%eth0')).toBe(bucket);
    expect(addressBucket('2001:db8:85a3:1::1')).not.toBe(bucket);
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  });

  it('leaves anything else as it is', () => {
    expect(addressBucket('not-an-address')).toBe('not-an-address');
  });
});
