import { Inject, Injectable } from '@nestjs/common';
import {
  type ApiKeyView,
  type ConnectionStatus,
  type ConnectionView,
  type CreateIntegrationRequest,
  type CreatedIntegration,
  type IntegrationView,
  type IssuedApiKey,
  type MerchantConnectionView,
  PARTNERS_INTERNAL_ROUTES as R,
  type Page,
  type PartnerMode,
  type PaymentAnomalyView,
  type RotatedWebhookSecret,
  type WebhookEndpointView,
} from '@mm/contracts';
import type { InternalHttpClient } from '@mm/platform';
import { UPSTREAMS, type Upstreams } from '../../gateway/upstreams';

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The partners service's internal routes (libs/contracts partners.ts), typed. Errors come back as
 * the partners service's own stable codes and statuses (CONNECTION_NOT_FOUND, CONFLICT, ...).
 */
@Injectable()
export class PartnersClient {
  private readonly http: InternalHttpClient;

  constructor(@Inject(UPSTREAMS) upstreams: Upstreams) {
    this.http = upstreams.partners;
  }

  merchantConnections(
    merchantId: string,
    q: { status?: ConnectionStatus; cursor?: string; limit?: number },
  ): Promise<Page<MerchantConnectionView>> {
    return this.http.get(`${R.merchantConnections(merchantId)}${query(q)}`);
  }

  merchantConnectionAction(
    merchantId: string,
    connectionId: string,
    action: 'accept' | 'reject' | 'revoke',
  ): Promise<MerchantConnectionView> {
    return this.http.post(R.merchantConnectionAction(merchantId, connectionId, action));
  }

  createIntegration(body: CreateIntegrationRequest): Promise<CreatedIntegration> {
    return this.http.post(R.integrations, body);
  }

  integrations(q: { cursor?: string; limit?: number }): Promise<Page<IntegrationView>> {
    return this.http.get(`${R.integrations}${query(q)}`);
  }

  integration(id: string): Promise<IntegrationView> {
    return this.http.get(R.integration(id));
  }

  revokeIntegration(id: string, actorId: string): Promise<IntegrationView> {
    return this.http.post(R.revokeIntegration(id), { actorId });
  }

  apiKeys(id: string): Promise<ApiKeyView[]> {
    return this.http.get(R.apiKeys(id));
  }

  issueApiKey(id: string, mode: PartnerMode, createdBy: string): Promise<IssuedApiKey> {
    return this.http.post(R.apiKeys(id), { mode, createdBy });
  }

  rotateApiKey(id: string, keyId: string, overlapSeconds: number | undefined, createdBy: string): Promise<IssuedApiKey> {
    return this.http.post(R.rotateApiKey(id, keyId), { overlapSeconds, createdBy });
  }

  revokeApiKey(id: string, keyId: string): Promise<ApiKeyView> {
    return this.http.post(R.revokeApiKey(id, keyId));
  }

  setWebhookEndpoint(id: string, mode: PartnerMode, url: string): Promise<WebhookEndpointView> {
    return this.http.put(R.webhookEndpoint(id), { mode, url });
  }

  rotateWebhookSecret(id: string, mode: PartnerMode): Promise<RotatedWebhookSecret> {
    return this.http.post(R.rotateWebhookSecret(id), { mode });
  }

  adminRevokeConnection(connectionId: string, actorId: string): Promise<ConnectionView> {
    return this.http.post(R.adminRevokeConnection(connectionId), { actorId });
  }

  paymentAnomalies(q: { status?: 'open' | 'resolved'; cursor?: string; limit?: number }): Promise<Page<PaymentAnomalyView>> {
    return this.http.get(`${R.paymentAnomalies}${query(q)}`);
  }

  resolvePaymentAnomaly(id: string, resolution: string, resolvedBy: string): Promise<PaymentAnomalyView> {
    return this.http.post(R.resolvePaymentAnomaly(id), { resolution, resolvedBy });
  }
}
