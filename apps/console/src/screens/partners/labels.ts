import type { components } from '../../api/schema';

export type Integration = components['schemas']['IntegrationSummaryDto'];
export type ApiKey = components['schemas']['ApiKeyViewDto'];
export type Endpoint = components['schemas']['WebhookEndpointStateDto'];
export type Connection = components['schemas']['StaffConnectionViewDto'];
export type WebhookEvent = components['schemas']['WebhookEventSummaryDto'];
export type Attempt = components['schemas']['WebhookAttemptDto'];
export type Mode = Endpoint['mode'];

/** A webhook event's delivery state in words: a state added to the API fails the type-check until named here. */
export const EVENT_STATUS_LABELS: Record<WebhookEvent['status'], string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  held: 'Held (endpoint disabled)',
};

export const EVENT_STATUS_COLORS: Record<WebhookEvent['status'], string> = {
  pending: 'blue',
  delivered: 'green',
  failed: 'red',
  held: 'orange',
};

export const KEY_STATUS_COLORS: Record<ApiKey['status'], string> = {
  active: 'green',
  expiring: 'yellow',
  expired: 'gray',
  revoked: 'gray',
};

export const CONNECTION_STATUS_LABELS: Record<Connection['status'], string> = {
  pending: 'Pending',
  active: 'Active',
  rejected: 'Rejected',
  revoked: 'Revoked',
  expired: 'Expired',
};

export const MODES: Mode[] = ['live', 'test'];

/** A badge inside a table cell keeps its whole word (Mantine clips the label to the column otherwise). */
export const CELL_BADGE = { label: { overflow: 'visible' } } as const;
