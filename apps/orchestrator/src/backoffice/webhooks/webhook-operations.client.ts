import { Inject, Injectable } from '@nestjs/common';
import {
  DISPATCHER_OPERATIONS_ROUTES as D,
  type DispatcherAttemptView,
  type DispatcherEndpointState,
  type DispatcherEndpointView,
  type DispatcherEventView,
  type IntegrationSummary,
  PARTNERS_BACKOFFICE_ROUTES as P,
  type Page,
  type PartnerEventRef,
  type PartnerMode,
  type StaffConnectionView,
  type WebhookEventSearch,
} from '@mm/contracts';
import type { ConnectionStatus } from '@mm/contracts';
import type { InternalHttpClient } from '@mm/platform';
import { UPSTREAMS, type Upstreams } from '../../gateway/upstreams';

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The dispatcher's and partners' internal routes that staff operations use, called with the
 * orchestrator's own service key (libs/contracts webhook-operations.ts). Errors come back with the
 * callee's stable codes (WEBHOOK_EVENT_NOT_FOUND, INTEGRATION_NOT_FOUND, WEBHOOK_QUEUE_UNAVAILABLE…).
 */
@Injectable()
export class WebhookOperationsClient {
  private readonly dispatcher: InternalHttpClient;
  private readonly partners: InternalHttpClient;

  constructor(@Inject(UPSTREAMS) upstreams: Upstreams) {
    this.dispatcher = upstreams['webhook-dispatcher'];
    this.partners = upstreams.partners;
  }

  // partners

  integrations(q: { cursor?: string; limit?: number }): Promise<Page<IntegrationSummary>> {
    return this.partners.get(`${P.integrations}${query(q)}`);
  }

  integration(integrationId: string): Promise<IntegrationSummary> {
    return this.partners.get(P.integration(integrationId));
  }

  connections(
    integrationId: string,
    q: { status?: ConnectionStatus; mode?: PartnerMode; cursor?: string; limit?: number },
  ): Promise<Page<StaffConnectionView>> {
    return this.partners.get(`${P.connections(integrationId)}${query(q)}`);
  }

  orderEvents(orderId: string): Promise<PartnerEventRef[]> {
    return this.partners.get(P.orderEvents(orderId));
  }

  partnerEvent(eventId: string): Promise<PartnerEventRef> {
    return this.partners.get(P.event(eventId));
  }

  // dispatcher

  searchEvents({ endpointIds, ...filters }: WebhookEventSearch): Promise<Page<DispatcherEventView>> {
    return this.dispatcher.get(`${D.searchEvents}${query({ endpointIds: endpointIds.join(','), ...filters })}`);
  }

  event(eventId: string): Promise<DispatcherEventView> {
    return this.dispatcher.get(D.event(eventId));
  }

  attempts(eventId: string): Promise<DispatcherAttemptView[]> {
    return this.dispatcher.get(D.attempts(eventId));
  }

  resend(eventId: string, idempotencyKey: string): Promise<{ eventId: string; jobId: string; repeated: boolean }> {
    return this.dispatcher.post(D.resend(eventId), { idempotencyKey });
  }

  resendUndelivered(window: {
    from: string;
    to: string;
    integrationId: string;
    after?: string;
  }): Promise<{ eventIds: string[]; truncated: boolean }> {
    return this.dispatcher.post(D.resendUndelivered, window);
  }

  endpointState(endpointId: string): Promise<DispatcherEndpointState> {
    return this.dispatcher.get(D.endpointState(endpointId));
  }

  enableEndpoint(endpointId: string): Promise<{ endpoint: DispatcherEndpointView; replayed: number }> {
    return this.dispatcher.post(D.enableEndpoint(endpointId));
  }
}
