import type { ConnectionStatus, IntegrationView, PartnerMode, PartnerScope, RevokedBy } from './partners';

/*
 * Webhook and partner operations for staff (issue 26): what the orchestrator's back-office routes
 * (`/api/backoffice/webhooks/*`, `/api/backoffice/partners/*`) ask the dispatcher and partners, and
 * what they answer. The dispatcher knows endpoints, not integrations: partners gives each
 * integration two endpoint ids (live = the integration id, test = its own id), and the orchestrator
 * joins the two.
 */

export const WEBHOOK_EVENT_STATUSES = ['pending', 'delivered', 'failed', 'held'] as const;
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number];

/** A status filter: one status, or `undelivered` = failed or held (what a recovery queues again). */
export const WEBHOOK_EVENT_FILTERS = [...WEBHOOK_EVENT_STATUSES, 'undelivered'] as const;
export type WebhookEventFilter = (typeof WEBHOOK_EVENT_FILTERS)[number];

/** Internal routes of the dispatcher the orchestrator calls with its own service key. */
export const DISPATCHER_OPERATIONS_ROUTES = {
  /** POST WebhookEventSearch → 200 Page<DispatcherEventView> (newest received first) */
  searchEvents: '/internal/webhooks/events/search',
  /** GET → 200 DispatcherEventView */
  event: (eventId: string) => `/internal/webhooks/events/${eventId}`,
  /** GET → 200 DispatcherAttemptView[] (oldest first) */
  attempts: (eventId: string) => `/internal/webhooks/events/${eventId}/attempts`,
  /** POST `{ idempotencyKey? }` → 202 `{ eventId, jobId, repeated }` */
  resend: (eventId: string) => `/internal/webhooks/events/${eventId}/resend`,
  /** POST `{ from, to, integrationId?, after? }` → 202 `{ eventIds, truncated }` */
  resendUndelivered: '/internal/webhooks/events/resend-undelivered',
  /** GET → 200 DispatcherEndpointState (the endpoint, its held events, its disable/enable history) */
  endpointState: (endpointId: string) => `/internal/webhooks/endpoints/${endpointId}/state`,
  /** POST → 200 `{ endpoint, replayed }` */
  enableEndpoint: (endpointId: string) => `/internal/webhooks/endpoints/${endpointId}/enable`,
} as const;

/** Internal routes of partners for the back office (orchestrator only). */
export const PARTNERS_BACKOFFICE_ROUTES = {
  /** GET `?cursor=&limit=` → 200 Page<IntegrationSummary> (newest first) */
  integrations: '/internal/partners/backoffice/integrations',
  /** GET → 200 IntegrationSummary */
  integration: (integrationId: string) => `/internal/partners/backoffice/integrations/${integrationId}`,
  /** GET `?status=&mode=&cursor=&limit=` → 200 Page<StaffConnectionView> (newest first) */
  connections: (integrationId: string) => `/internal/partners/backoffice/integrations/${integrationId}/connections`,
  /** GET → 200 PartnerEventRef[] (the events written about one order, oldest first) */
  orderEvents: (orderId: string) => `/internal/partners/backoffice/orders/${orderId}/events`,
  /** GET → 200 PartnerEventRef */
  event: (eventId: string) => `/internal/partners/backoffice/events/${eventId}`,
} as const;

export interface WebhookEventSearch {
  /** the dispatcher endpoints to look in (an integration's live and test endpoints) */
  endpointIds: string[];
  status?: WebhookEventFilter;
  eventType?: string;
  /** received at or after */
  since?: string;
  /** received before */
  until?: string;
  cursor?: string;
  limit?: number;
}

/** An event as the dispatcher records it; `integrationId` is the endpoint id it goes to. */
export interface DispatcherEventView {
  id: string;
  integrationId: string;
  event: string;
  status: WebhookEventStatus;
  attemptCount: number;
  resendCount: number;
  createdAt: string;
  receivedAt: string;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
}

export interface DispatcherAttemptView {
  attemptNumber: number;
  jobId: string;
  url: string;
  attemptedAt: string;
  signedAt: number;
  statusCode: number | null;
  error: string | null;
  errorCode: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
  outcome: 'success' | 'failure';
}

export interface DispatcherEndpointView {
  integrationId: string;
  url: string;
  status: 'enabled' | 'disabled';
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointHealthEvent {
  kind: 'disabled' | 'enabled';
  reason: string;
  createdAt: string;
}

export interface DispatcherEndpointState {
  endpoint: DispatcherEndpointView;
  /** events waiting for the endpoint to be enabled */
  held: number;
  /** oldest first */
  history: EndpointHealthEvent[];
}

/** The two dispatcher endpoints of an integration. */
export interface IntegrationEndpointIds {
  live: string;
  test: string;
}

/** An integration as staff list it: its endpoints and how many merchants it is connected to. */
export interface IntegrationSummary extends IntegrationView {
  endpointIds: IntegrationEndpointIds;
  /** live connections by effective status (pending past its end counts as expired, not here) */
  connections: { pending: number; active: number };
}

/** A connection as staff see it: the real merchant (null when the phone matched no merchant), never the partner's pseudonym. */
export interface StaffConnectionView {
  id: string;
  integrationId: string;
  mode: PartnerMode;
  merchantId: string | null;
  status: ConnectionStatus;
  scopes: PartnerScope[];
  requestedReason: string | null;
  pendingExpiresAt: string;
  activatedAt: string | null;
  revokedAt: string | null;
  revokedBy: RevokedBy | null;
  createdAt: string;
}

/** An event partners wrote (its id is the dispatcher's event id). */
export interface PartnerEventRef {
  id: string;
  integrationId: string;
  mode: PartnerMode;
  type: string;
  /** the order or connection it is about */
  subjectId: string;
  createdAt: string;
  /** when partners handed it to the dispatcher's queue; null while it waits in partners' outbox */
  dispatchedAt: string | null;
}

// ---------------------------------------------------------------------------------------------
// What the orchestrator answers staff (`/api/backoffice/webhooks/*`)
// ---------------------------------------------------------------------------------------------

export interface WebhookEventSummary {
  id: string;
  integrationId: string;
  mode: PartnerMode;
  event: string;
  status: WebhookEventStatus;
  attemptCount: number;
  resendCount: number;
  createdAt: string;
  receivedAt: string;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
}

export interface WebhookAttempt {
  attemptNumber: number;
  attemptedAt: string;
  url: string;
  /** the receiver's HTTP status; null when no answer came (see errorCode) */
  statusCode: number | null;
  latencyMs: number;
  /** the first 512 bytes of the receiver's answer */
  responseExcerpt: string | null;
  outcome: 'success' | 'failure';
  /** why it failed (a code of the catalogue); null on success */
  errorCode: string | null;
  error: string | null;
}

/** One event and every attempt to deliver it. */
export interface WebhookDeliveryLog {
  event: WebhookEventSummary;
  attempts: WebhookAttempt[];
}

/** Deliveries of the events written about one partner order (the payment story's webhook part). */
export interface OrderWebhookDeliveries {
  orderId: string;
  /** events partners wrote about the order, oldest first; `delivery` null while it has not reached the dispatcher */
  events: { ref: PartnerEventRef; delivery: WebhookDeliveryLog | null }[];
}

export interface WebhookEndpointState {
  mode: PartnerMode;
  endpointId: string;
  url: string;
  status: 'enabled' | 'disabled';
  /** first failed attempt since the last success; null while healthy */
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  /** events waiting for this endpoint to be enabled */
  held: number;
  updatedAt: string;
  /** every disable and enable, oldest first */
  history: EndpointHealthEvent[];
}

export interface WebhookResendResult {
  eventId: string;
  jobId: string;
  /** true when this idempotency key had already queued the run: nothing new was queued */
  repeated: boolean;
}

export interface WebhookRecoverResult {
  /** how many failed or held events were queued again */
  queued: number;
  since: string;
  until: string;
}

export interface WebhookEnableResult {
  endpoint: WebhookEndpointState;
  /** held events queued again */
  replayed: number;
}
