import { Injectable } from '@nestjs/common';
import { PARTNERS_INTERNAL_ROUTES, type QrOrderResolution } from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';

/** Partner order tokens (libs/contracts partners.ts): `pqr_` and 43 letters or digits. */
export const PARTNER_QR = /^pqr_[0-9A-Za-z]{43}$/;

/** Resolves a scanned partner-order QR to the order it pays (404 QR_NOT_FOUND). */
@Injectable()
export class MerchantQrClient {
  private readonly http: InternalHttpClient;

  constructor(config: OrchestratorConfig) {
    this.http = new InternalHttpClient({
      name: 'partners',
      baseUrl: config.PARTNERS_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  resolve(qrToken: string): Promise<QrOrderResolution> {
    return this.http.get<QrOrderResolution>(PARTNERS_INTERNAL_ROUTES.qrOrder(qrToken));
  }
}
