import { Injectable } from '@nestjs/common';
import { QR_PAYMENT_ROUTES, type QrPaymentsAnswer } from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { PartnersConfig } from '../partners.config';

/**
 * Whether the ledger paid QR tokens (libs/contracts qr-payments.ts), asked through the orchestrator's
 * internal listener, the link partners already has. The expiry sweep asks before it expires orders.
 */
@Injectable()
export class QrPaymentsClient {
  private readonly http: InternalHttpClient;

  constructor(config: PartnersConfig) {
    this.http = new InternalHttpClient({
      name: 'qr payments',
      baseUrl: config.ORCHESTRATOR_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.PARTNERS_UPSTREAM_TIMEOUT_MS,
    });
  }

  outcomes(qrTokens: string[]): Promise<QrPaymentsAnswer> {
    return this.http.post<QrPaymentsAnswer>(QR_PAYMENT_ROUTES.orchestrator, { qrTokens });
  }
}
