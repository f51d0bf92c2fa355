import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The merchantId an integration sees when the phone it asked for matches no merchant: a UUID v4
 * computed with a server-side key from (integration, mode, phone). It is stable, so asking twice
 * finds the same pending request (alreadyExisted: true, as for a real merchant), and it is
 * indistinguishable from a real merchant id without the key, so the answer reveals nothing.
 */
export class MerchantPseudonyms {
  private readonly key: Buffer;

  constructor(serviceKey: string) {
    this.key = Buffer.from(hkdfSync('sha256', serviceKey, 'mm-partners', 'merchant-pseudonym-v1', 32));
  }

  of(integrationId: string, livemode: boolean, phone: string): string {
    const bytes = createHmac('sha256', this.key)
      .update(`${integrationId}|${livemode ? 'live' : 'test'}|${phone}`)
      .digest()
      .subarray(0, 16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
