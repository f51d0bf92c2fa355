import { ApiProperty } from '@nestjs/swagger';
import { IntegrationViewDto } from './partner-views';
import {
  CONNECTION_STATUSES,
  type ConnectionStatus,
  type IntegrationView,
  PARTNER_MODES,
  PARTNER_SCOPES,
  type Page,
  type PartnerMode,
  type PartnerScope,
  REVOKED_BY,
  type RevokedBy,
} from './partners';

/*
 * Webhook and partner operations for staff (docs/partners.md "The back office: integrations, keys on four eyes, webhook deliveries"): what the orchestrator's back-office routes
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
  /** GET `?endpointIds=<a>,<b>&status=&eventType=&since=&until=&cursor=&limit=` → 200 Page<DispatcherEventView> (newest received first) */
  searchEvents: '/internal/webhooks/events',
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

// ---------------------------------------------------------------------------------------------
// OpenAPI classes of the shapes above (partners' internal document and the orchestrator's public
// one describe the same data). Each `implements` its contract type.
// ---------------------------------------------------------------------------------------------

const NEXT_CURSOR = { type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' };
const UUID_EXAMPLE = '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6';

export class IntegrationEndpointIdsDto implements IntegrationEndpointIds {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE, description: 'the live endpoint (the integration id)' })
  live: string;

  @ApiProperty({ format: 'uuid', example: '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d', description: 'the test endpoint' })
  test: string;
}

export class ConnectionCountsDto {
  @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
  pending: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 12 })
  active: number;
}

export class IntegrationSummaryDto extends IntegrationViewDto implements IntegrationSummary {
  @ApiProperty({ type: IntegrationEndpointIdsDto })
  endpointIds: IntegrationEndpointIdsDto;

  @ApiProperty({ type: ConnectionCountsDto, description: 'live connections to merchants, by status' })
  connections: ConnectionCountsDto;
}

export class IntegrationSummaryPageDto implements Page<IntegrationSummary> {
  @ApiProperty({ type: [IntegrationSummaryDto], description: 'newest first' })
  data: IntegrationSummaryDto[];

  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}

export class StaffConnectionViewDto implements StaffConnectionView {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  id: string;

  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  integrationId: string;

  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  mode: PartnerMode;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'the merchant; null when the phone asked for matched no merchant',
  })
  merchantId: string | null;

  @ApiProperty({ enum: CONNECTION_STATUSES, example: 'active' })
  status: ConnectionStatus;

  @ApiProperty({ enum: PARTNER_SCOPES, isArray: true, example: ['orders.write', 'orders.read'] })
  scopes: PartnerScope[];

  @ApiProperty({ type: String, nullable: true, example: 'Take payments at the till' })
  requestedReason: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z' })
  pendingExpiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:05:00.000Z' })
  activatedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  revokedAt: string | null;

  @ApiProperty({ type: String, enum: REVOKED_BY, nullable: true, example: null })
  revokedBy: RevokedBy | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
}

export class StaffConnectionPageDto implements Page<StaffConnectionView> {
  @ApiProperty({ type: [StaffConnectionViewDto], description: 'newest first' })
  data: StaffConnectionViewDto[];

  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}

export class PartnerEventRefDto implements PartnerEventRef {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE, description: 'the event id (the same at the dispatcher)' })
  id: string;

  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  integrationId: string;

  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  mode: PartnerMode;

  @ApiProperty({ example: 'order.paid' })
  type: string;

  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE, description: 'the order or connection it is about' })
  subjectId: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-22T10:00:00.040Z',
    description: 'when it was handed to the dispatcher; null while it waits in partners',
  })
  dispatchedAt: string | null;
}

export class WebhookEventSummaryDto implements WebhookEventSummary {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  id: string;

  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  integrationId: string;

  @ApiProperty({ enum: PARTNER_MODES, example: 'live', description: 'which of the two endpoints it goes to' })
  mode: PartnerMode;

  @ApiProperty({ example: 'order.paid' })
  event: string;

  @ApiProperty({
    enum: WEBHOOK_EVENT_STATUSES,
    example: 'delivered',
    description: 'pending: queued or between retries; delivered; failed: every attempt failed; held: its endpoint is disabled',
  })
  status: WebhookEventStatus;

  @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
  attemptCount: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 0, description: 'delivery runs after the first (resends, recoveries, replays)' })
  resendCount: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.012Z' })
  receivedAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:00:00.150Z' })
  lastAttemptAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:00:00.150Z' })
  deliveredAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  failedAt: string | null;
}

export class WebhookEventPageDto implements Page<WebhookEventSummary> {
  @ApiProperty({ type: [WebhookEventSummaryDto], description: 'newest received first' })
  data: WebhookEventSummaryDto[];

  @ApiProperty(NEXT_CURSOR)
  nextCursor: string | null;
}

export class WebhookAttemptDto implements WebhookAttempt {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1, description: 'numbered per event, across resends' })
  attemptNumber: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.020Z' })
  attemptedAt: string;

  @ApiProperty({ example: 'https://pos.example.com/webhooks/mm' })
  url: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 500, description: "the receiver's HTTP status; null when it did not answer" })
  statusCode: number | null;

  @ApiProperty({ type: 'integer', minimum: 0, example: 130 })
  latencyMs: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'upstream database down',
    description: "the first 512 bytes of the receiver's answer",
  })
  responseExcerpt: string | null;

  @ApiProperty({ enum: ['success', 'failure'], example: 'failure' })
  outcome: 'success' | 'failure';

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'WEBHOOK_RECEIVER_HTTP_ERROR',
    description:
      'why it failed, a code of the catalogue (WEBHOOK_RECEIVER_HTTP_ERROR, _TIMEOUT, _UNREACHABLE, WEBHOOK_DNS_FAILED, …); null on success',
  })
  errorCode: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'why no status came back, in words (`timeout`, `network: ECONNREFUSED`…)',
  })
  error: string | null;
}

export class WebhookDeliveryLogDto implements WebhookDeliveryLog {
  @ApiProperty({ type: WebhookEventSummaryDto })
  event: WebhookEventSummaryDto;

  @ApiProperty({ type: [WebhookAttemptDto], description: 'every attempt, oldest first (empty before the first)' })
  attempts: WebhookAttemptDto[];
}

export class OrderWebhookEventDto {
  @ApiProperty({ type: PartnerEventRefDto })
  ref: PartnerEventRefDto;

  @ApiProperty({ type: WebhookDeliveryLogDto, nullable: true, description: 'null while it has not reached the dispatcher' })
  delivery: WebhookDeliveryLogDto | null;
}

export class OrderWebhookDeliveriesDto implements OrderWebhookDeliveries {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  orderId: string;

  @ApiProperty({ type: [OrderWebhookEventDto], description: 'oldest first' })
  events: OrderWebhookEventDto[];
}

export class EndpointHealthEventDto implements EndpointHealthEvent {
  @ApiProperty({ enum: ['disabled', 'enabled'], example: 'disabled' })
  kind: 'disabled' | 'enabled';

  @ApiProperty({ example: 'failing for 3 days' })
  reason: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;
}

export class WebhookEndpointStateDto implements WebhookEndpointState {
  @ApiProperty({ enum: PARTNER_MODES, example: 'live' })
  mode: PartnerMode;

  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  endpointId: string;

  @ApiProperty({ example: 'https://pos.example.com/webhooks/mm' })
  url: string;

  @ApiProperty({ enum: ['enabled', 'disabled'], example: 'disabled' })
  status: 'enabled' | 'disabled';

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-19T10:00:00.000Z' })
  failingSince: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T10:00:00.000Z', description: 'disabled since' })
  disabledAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'failing for 3 days', description: 'why it was disabled' })
  disabledReason: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, example: 3, description: 'events waiting for it to be enabled' })
  held: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updatedAt: string;

  @ApiProperty({ type: [EndpointHealthEventDto], description: 'every disable and enable, oldest first' })
  history: EndpointHealthEventDto[];
}

export class WebhookResendResultDto implements WebhookResendResult {
  @ApiProperty({ format: 'uuid', example: UUID_EXAMPLE })
  eventId: string;

  @ApiProperty({ example: `${UUID_EXAMPLE}-resend-1`, description: 'the delivery job of this run' })
  jobId: string;

  @ApiProperty({ example: false, description: 'true when this idempotency key had already queued the run: nothing new was queued' })
  repeated: boolean;
}

export class WebhookRecoverResultDto implements WebhookRecoverResult {
  @ApiProperty({ type: 'integer', minimum: 0, example: 4, description: 'failed or held events queued again' })
  queued: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T00:00:00.000Z' })
  since: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-22T10:00:00.000Z',
    description: 'when the recovery looked (events received later are not included)',
  })
  until: string;
}

export class WebhookEnableResultDto implements WebhookEnableResult {
  @ApiProperty({ type: WebhookEndpointStateDto })
  endpoint: WebhookEndpointStateDto;

  @ApiProperty({ type: 'integer', minimum: 0, example: 3, description: 'held events queued again' })
  replayed: number;
}
