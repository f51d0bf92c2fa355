import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { InternalHttpClient } from '@mm/platform';
import { PartnersConfig } from '../partners.config';

interface EndpointAnswer {
  url: string;
  status: 'enabled' | 'disabled';
  secret?: string;
}

/**
 * The dispatcher's endpoint API (apps/webhook-dispatcher/src/endpoints): one endpoint per id, its
 * URL and its signing secret, which the dispatcher generates, encrypts at rest and hands out once.
 * Partners gives each integration two endpoint ids: the integration id (live) and its
 * `test_endpoint_id` (test), so test events never carry the live secret.
 */
@Injectable()
export class DispatcherEndpointsClient {
  private readonly http: InternalHttpClient;

  constructor(config: PartnersConfig) {
    this.http = new InternalHttpClient({
      name: 'webhook-dispatcher',
      baseUrl: config.WEBHOOK_DISPATCHER_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.PARTNERS_UPSTREAM_TIMEOUT_MS,
    });
  }

  /** Creates the endpoint and returns its secret (shown once). */
  async create(endpointId: string, url: string): Promise<{ secret: string }> {
    const answer = await this.http.put<EndpointAnswer>(`/internal/webhooks/endpoints/${endpointId}`, { url });
    if (!answer.secret) throw new AppException('CONFLICT', 'The webhook endpoint already existed: rotate its secret instead');
    return { secret: answer.secret };
  }

  async setUrl(endpointId: string, url: string): Promise<{ url: string; status: 'enabled' | 'disabled' }> {
    const answer = await this.http.put<EndpointAnswer>(`/internal/webhooks/endpoints/${endpointId}`, { url });
    return { url: answer.url, status: answer.status };
  }

  rotateSecret(endpointId: string): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
    return this.http.post(`/internal/webhooks/endpoints/${endpointId}/rotate-secret`);
  }
}
