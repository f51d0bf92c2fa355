import { Injectable } from '@nestjs/common';
import { DIRECTORY_ROUTES, type MerchantDirectoryEntry } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { InternalHttpClient } from '@mm/platform';
import { PartnersConfig } from '../partners.config';

const CACHE_MAX_ENTRIES = 10_000;

/**
 * The orchestrator's merchant directory (libs/contracts directory.ts). Lookups by id are cached
 * briefly: order creation needs the merchant's status and ledger account on every call, and a
 * change there (a freeze) reaching orders within PARTNERS_DIRECTORY_CACHE_MS is acceptable because
 * the QR-pay path checks the merchant again when the customer pays.
 */
@Injectable()
export class MerchantDirectoryClient {
  private readonly http: InternalHttpClient;
  private readonly cache = new Map<string, { entry: MerchantDirectoryEntry | null; until: number }>();

  constructor(private readonly config: PartnersConfig) {
    this.http = new InternalHttpClient({
      name: 'merchant directory',
      baseUrl: config.ORCHESTRATOR_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.PARTNERS_UPSTREAM_TIMEOUT_MS,
    });
  }

  /** The merchant registered with this phone, or null. */
  async byPhone(phone: string): Promise<MerchantDirectoryEntry | null> {
    return this.orNull(this.http.get<MerchantDirectoryEntry>(`${DIRECTORY_ROUTES.merchantByPhone}?phone=${encodeURIComponent(phone)}`));
  }

  async byId(merchantId: string): Promise<MerchantDirectoryEntry | null> {
    const ttl = this.config.PARTNERS_DIRECTORY_CACHE_MS;
    const cached = this.cache.get(merchantId);
    if (cached && cached.until > Date.now()) return cached.entry;
    const entry = await this.orNull(this.http.get<MerchantDirectoryEntry>(`${DIRECTORY_ROUTES.merchantById}/${merchantId}`));
    if (ttl > 0) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(merchantId, { entry, until: Date.now() + ttl });
    }
    return entry;
  }

  private async orNull(call: Promise<MerchantDirectoryEntry>): Promise<MerchantDirectoryEntry | null> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof AppException && error.code === 'MERCHANT_NOT_FOUND') return null;
      throw error;
    }
  }
}
