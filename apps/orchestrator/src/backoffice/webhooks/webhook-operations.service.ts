import { Injectable } from '@nestjs/common';
import type {
  DispatcherAttemptView,
  DispatcherEndpointState,
  DispatcherEventView,
  IntegrationEndpointIds,
  OrderWebhookDeliveries,
  Page,
  PartnerMode,
  WebhookAttempt,
  WebhookDeliveryLog,
  WebhookEnableResult,
  WebhookEndpointState,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookRecoverResult,
  WebhookResendResult,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { WebhookOperationsClient } from './webhook-operations.client';

const MODES: readonly PartnerMode[] = ['live', 'test'];

export interface EventListQuery {
  status?: WebhookEventFilter;
  eventType?: string;
  mode?: PartnerMode;
  since?: string;
  until?: string;
  cursor?: string;
  limit?: number;
}

function toSummary(e: DispatcherEventView, integrationId: string, mode: PartnerMode): WebhookEventSummary {
  return {
    id: e.id,
    integrationId,
    mode,
    event: e.event,
    status: e.status,
    attemptCount: e.attemptCount,
    resendCount: e.resendCount,
    createdAt: e.createdAt,
    receivedAt: e.receivedAt,
    lastAttemptAt: e.lastAttemptAt,
    deliveredAt: e.deliveredAt,
    failedAt: e.failedAt,
  };
}

function toAttempt(a: DispatcherAttemptView): WebhookAttempt {
  return {
    attemptNumber: a.attemptNumber,
    attemptedAt: a.attemptedAt,
    url: a.url,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    responseExcerpt: a.responseExcerpt,
    outcome: a.outcome,
    errorCode: a.errorCode,
    error: a.error,
  };
}

function toEndpointState(mode: PartnerMode, s: DispatcherEndpointState): WebhookEndpointState {
  return {
    mode,
    endpointId: s.endpoint.integrationId,
    url: s.endpoint.url,
    status: s.endpoint.status,
    failingSince: s.endpoint.failingSince,
    disabledAt: s.endpoint.disabledAt,
    disabledReason: s.endpoint.disabledReason,
    held: s.held,
    updatedAt: s.endpoint.updatedAt,
    history: s.history,
  };
}

/**
 * Webhook operations for staff, per integration: partners names the integration's two dispatcher
 * endpoints (live and test), the dispatcher holds the events, their attempts and the endpoints'
 * state. Everything runs with the orchestrator's own service key; who may ask is decided by the
 * access guard on the calling route.
 */
@Injectable()
export class WebhookOperationsService {
  constructor(private readonly client: WebhookOperationsClient) {}

  private async endpointsOf(integrationId: string): Promise<IntegrationEndpointIds> {
    return (await this.client.integration(integrationId)).endpointIds;
  }

  async events(integrationId: string, q: EventListQuery): Promise<Page<WebhookEventSummary>> {
    const ids = await this.endpointsOf(integrationId);
    const modeOf = (endpointId: string): PartnerMode => (endpointId === ids.test ? 'test' : 'live');
    const { mode, ...filters } = q;
    const page = await this.client.searchEvents({ endpointIds: mode ? [ids[mode]] : [ids.live, ids.test], ...filters });
    return { data: page.data.map((e) => toSummary(e, integrationId, modeOf(e.integrationId))), nextCursor: page.nextCursor };
  }

  /** One event and every attempt to deliver it. */
  async deliveryLog(eventId: string): Promise<WebhookDeliveryLog> {
    const [event, attempts] = await Promise.all([this.client.event(eventId), this.client.attempts(eventId)]);
    const ref = await this.client.partnerEvent(eventId);
    return { event: toSummary(event, ref.integrationId, ref.mode), attempts: attempts.map(toAttempt) };
  }

  /**
   * The webhook part of a payment's story: the events partners wrote about the order (order.paid,
   * order.expired) and, for each, its deliveries. An unknown order has no events.
   */
  async eventsForOrder(orderId: string): Promise<OrderWebhookDeliveries> {
    const refs = await this.client.orderEvents(orderId);
    const events = await Promise.all(
      refs.map(async (ref) => {
        try {
          const [event, attempts] = await Promise.all([this.client.event(ref.id), this.client.attempts(ref.id)]);
          return { ref, delivery: { event: toSummary(event, ref.integrationId, ref.mode), attempts: attempts.map(toAttempt) } };
        } catch (error) {
          // not at the dispatcher yet (waiting in partners' outbox)
          if (error instanceof AppException && error.code === 'WEBHOOK_EVENT_NOT_FOUND') return { ref, delivery: null };
          throw error;
        }
      }),
    );
    return { orderId, events };
  }

  async resend(eventId: string, idempotencyKey: string): Promise<WebhookResendResult> {
    return this.client.resend(eventId, idempotencyKey);
  }

  /**
   * Queues again every failed or held event of the integration received since `since` (both modes
   * unless one is named), page by page, and says how many. `until` is fixed when the call starts, so
   * events arriving meanwhile are delivered normally, not counted.
   */
  async recover(integrationId: string, since: string, mode?: PartnerMode): Promise<WebhookRecoverResult> {
    const ids = await this.endpointsOf(integrationId);
    const until = new Date().toISOString();
    let queued = 0;
    for (const m of mode ? [mode] : MODES) {
      let after: string | undefined;
      for (;;) {
        const page = await this.client.resendUndelivered({ from: since, to: until, integrationId: ids[m], after });
        queued += page.eventIds.length;
        if (!page.truncated || page.eventIds.length === 0) break;
        after = page.eventIds[page.eventIds.length - 1];
      }
    }
    return { queued, since: new Date(since).toISOString(), until };
  }

  async endpoints(integrationId: string): Promise<WebhookEndpointState[]> {
    const ids = await this.endpointsOf(integrationId);
    const states = await Promise.all(
      MODES.map(async (mode) => {
        try {
          return toEndpointState(mode, await this.client.endpointState(ids[mode]));
        } catch (error) {
          if (error instanceof AppException && error.code === 'WEBHOOK_ENDPOINT_NOT_FOUND') return null;
          throw error;
        }
      }),
    );
    return states.filter((s): s is WebhookEndpointState => s !== null);
  }

  /** Enables the endpoint of one mode; its held events go out again. Enabling an enabled endpoint changes nothing. */
  async enable(integrationId: string, mode: PartnerMode): Promise<WebhookEnableResult> {
    const ids = await this.endpointsOf(integrationId);
    const { replayed } = await this.client.enableEndpoint(ids[mode]);
    return { endpoint: toEndpointState(mode, await this.client.endpointState(ids[mode])), replayed };
  }
}
