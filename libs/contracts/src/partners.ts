import type { Currency } from './services';
import type { OrderPaidData } from './webhooks';

/**
 * The partners service's contract with the rest of the platform (owned by partners):
 *   - the internal routes the orchestrator calls (service key): QR resolution for the QR-pay path,
 *     the merchant side of connections, and the admin operations on integrations;
 *   - the event types and payloads partners sends to integrations (same envelope as `order.paid`).
 * The public partner API itself (`/partners-public/*`) is described by the service's OpenAPI document.
 */

export const PARTNER_SCOPES = ['orders.write', 'orders.read'] as const;
export type PartnerScope = (typeof PARTNER_SCOPES)[number];

export const CONNECTION_STATUSES = ['pending', 'active', 'rejected', 'revoked', 'expired'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export const REVOKED_BY = ['merchant', 'integration', 'admin', 'system'] as const;
export type RevokedBy = (typeof REVOKED_BY)[number];

/** pending → paid (a matching ledger payment) or expired (nobody paid in time). */
export const ORDER_STATUSES = ['pending', 'paid', 'expired'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** `live` keys see live data only, `test` keys test data only. */
export const PARTNER_MODES = ['live', 'test'] as const;
export type PartnerMode = (typeof PARTNER_MODES)[number];

// ---------------------------------------------------------------------------------------------
// Events sent to integrations (webhooks and GET /partners-public/events)
// ---------------------------------------------------------------------------------------------

export const PARTNER_EVENT_TYPES = {
  orderPaid: 'order.paid',
  orderExpired: 'order.expired',
  connectionActivated: 'connection.activated',
  connectionRevokedByMerchant: 'connection.revoked_by_merchant',
} as const;
export type PartnerEventType = (typeof PARTNER_EVENT_TYPES)[keyof typeof PARTNER_EVENT_TYPES];
export const PARTNER_EVENT_TYPE_LIST: readonly PartnerEventType[] = Object.values(PARTNER_EVENT_TYPES);

export type { OrderPaidData };

/** `data` of `order.expired`: the order turned expired without a payment. */
export interface OrderExpiredData {
  orderId: string;
  amount: number;
  currencyCode: string;
  expiresAt: string;
  /** when the order was marked expired */
  expiredAt: string;
  externalReference?: string;
  description?: string;
}

/** `data` of `connection.activated`: the merchant accepted the request. */
export interface ConnectionActivatedData {
  connectionId: string;
  merchantId: string;
  scopes: PartnerScope[];
  activatedAt: string;
}

/** `data` of `connection.revoked_by_merchant`. */
export interface ConnectionRevokedByMerchantData {
  connectionId: string;
  merchantId: string;
  revokedAt: string;
}

// ---------------------------------------------------------------------------------------------
// Internal routes (service key, never reachable through the gateway)
// ---------------------------------------------------------------------------------------------

export const PARTNERS_INTERNAL_ROUTES = {
  /** GET `/internal/partners/qr/:qrToken` → 200 QrOrderResolution, or 404 QR_NOT_FOUND */
  qrOrder: (qrToken: string) => `/internal/partners/qr/${encodeURIComponent(qrToken)}`,

  /** GET `?status=pending|active|…&cursor=&limit=` → 200 Page<MerchantConnectionView> */
  merchantConnections: (merchantId: string) => `/internal/partners/merchants/${merchantId}/connections`,
  /** POST → 200 MerchantConnectionView; 404 CONNECTION_NOT_FOUND (unknown or another merchant's), 409 CONFLICT */
  merchantConnectionAction: (merchantId: string, connectionId: string, action: 'accept' | 'reject' | 'revoke') =>
    `/internal/partners/merchants/${merchantId}/connections/${connectionId}/${action}`,

  /** POST CreateIntegrationRequest → 201 CreatedIntegration; GET `?cursor=&limit=` → 200 Page<IntegrationView> */
  integrations: '/internal/partners/integrations',
  /** GET → 200 IntegrationView */
  integration: (integrationId: string) => `/internal/partners/integrations/${integrationId}`,
  /** POST → 200 IntegrationView (keys stop working at once, open connections are revoked by `admin`) */
  revokeIntegration: (integrationId: string) => `/internal/partners/integrations/${integrationId}/revoke`,
  /** GET → 200 ApiKeyView[]; POST IssueApiKeyRequest → 201 IssuedApiKey */
  apiKeys: (integrationId: string) => `/internal/partners/integrations/${integrationId}/keys`,
  /** POST RotateApiKeyRequest → 201 IssuedApiKey (the old key works until `overlapSeconds` have passed) */
  rotateApiKey: (integrationId: string, keyId: string) => `/internal/partners/integrations/${integrationId}/keys/${keyId}/rotate`,
  /** POST → 200 ApiKeyView (401 INVALID_INTEGRATION_CREDENTIALS for that key from now on) */
  revokeApiKey: (integrationId: string, keyId: string) => `/internal/partners/integrations/${integrationId}/keys/${keyId}/revoke`,
  /** PUT WebhookEndpointRequest → 200 WebhookEndpointView */
  webhookEndpoint: (integrationId: string) => `/internal/partners/integrations/${integrationId}/webhook-endpoint`,
  /** POST RotateWebhookSecretRequest → 200 RotatedWebhookSecret */
  rotateWebhookSecret: (integrationId: string) => `/internal/partners/integrations/${integrationId}/webhook-secret/rotate`,

  /** POST → 200 ConnectionView (revokedBy `admin`) */
  adminRevokeConnection: (connectionId: string) => `/internal/partners/connections/${connectionId}/revoke`,

  /** GET `?status=open|resolved&cursor=&limit=` → 200 Page<PaymentAnomalyView> */
  paymentAnomalies: '/internal/partners/payment-anomalies',
  /** POST ResolvePaymentAnomalyRequest → 200 PaymentAnomalyView */
  resolvePaymentAnomaly: (anomalyId: string) => `/internal/partners/payment-anomalies/${anomalyId}/resolve`,
} as const;

/** A page of a cursor-paginated list: pass `nextCursor` back as `cursor` while it is not null. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * What the QR-pay path needs to pay a partner order. Only live orders resolve. The orchestrator
 * must refuse to pay unless `payable` is true, credit exactly `destinationAccountId` with exactly
 * `amount` in `currencyCode`, and pass `qrToken` to the ledger intent (the payment is matched by it).
 */
export interface QrOrderResolution {
  orderId: string;
  qrToken: string;
  status: OrderStatus;
  /** pending and before expiresAt */
  payable: boolean;
  merchantId: string;
  destinationAccountId: string;
  amount: number;
  currencyCode: Currency;
  expiresAt: string;
  /**
   * The latest a payment of this order may commit and still pay it: after `expiresAt`, the order
   * waits PARTNERS_ORDER_EXPIRY_GRACE_SEC before it turns expired; half of that is left for the
   * ledger's event to reach partners. The paying intent must end by then.
   */
  payBy: string;
  integrationId: string;
  integrationName: string;
  description: string | null;
}

/** A connection as its merchant sees it: who asks, for what, in clear. */
export interface MerchantConnectionView {
  id: string;
  integrationId: string;
  integrationName: string;
  merchantId: string;
  status: ConnectionStatus;
  scopes: PartnerScope[];
  /** the scopes in words, for the merchant's screen */
  scopeDescriptions: string[];
  requestedReason: string | null;
  pendingExpiresAt: string;
  activatedAt: string | null;
  revokedAt: string | null;
  revokedBy: RevokedBy | null;
  createdAt: string;
  updatedAt: string;
}

/** A connection as docs/partners.md "3. Connecting to a merchant" shows it (public GET, admin revoke). */
export interface ConnectionView {
  id: string;
  integrationId: string;
  merchantId: string;
  status: ConnectionStatus;
  scopes: PartnerScope[];
  requestedReason: string | null;
  pendingExpiresAt: string;
  activatedAt: string | null;
  revokedAt: string | null;
  revokedBy: RevokedBy | null;
  createdAt: string;
  updatedAt: string;
  livemode: boolean;
}

export interface CreateIntegrationRequest {
  name: string;
  technicalContactEmail: string;
  /** receives live-mode events */
  webhookUrl: string;
  /** receives test-mode events; defaults to webhookUrl */
  testWebhookUrl?: string;
  /** who creates it (the admin's user id), for the record */
  createdBy: string;
}

export interface IntegrationView {
  id: string;
  name: string;
  technicalContactEmail: string;
  status: 'active' | 'revoked';
  revokedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyView {
  id: string;
  mode: PartnerMode;
  /** e.g. `svc_sk_live_…a1B2`: enough to recognise a key, never enough to use it */
  hint: string;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** The only time a key is shown: store it now, it cannot be read again. */
export interface IssuedApiKey extends ApiKeyView {
  key: string;
}

export interface CreatedIntegration {
  integration: IntegrationView;
  apiKeys: { live: IssuedApiKey; test: IssuedApiKey };
  /** signing secrets of the two webhook endpoints, shown once */
  webhookSecrets: { live: string; test: string };
}

export interface IssueApiKeyRequest {
  mode: PartnerMode;
  createdBy: string;
}

export interface RotateApiKeyRequest {
  /** how long the old key keeps working (default PARTNERS_KEY_ROTATION_OVERLAP_SEC) */
  overlapSeconds?: number;
  createdBy: string;
}

export interface WebhookEndpointRequest {
  mode: PartnerMode;
  url: string;
}

export interface WebhookEndpointView {
  mode: PartnerMode;
  url: string;
  status: 'enabled' | 'disabled';
}

export interface RotateWebhookSecretRequest {
  mode: PartnerMode;
}

export interface RotatedWebhookSecret {
  mode: PartnerMode;
  secret: string;
  previousSecretExpiresAt: string | null;
}

/** What went wrong with a payment that reached a merchant but could not pay its order. */
export const PAYMENT_ANOMALY_KINDS = ['order_expired', 'order_already_paid', 'payment_mismatch', 'test_order'] as const;
export type PaymentAnomalyKind = (typeof PAYMENT_ANOMALY_KINDS)[number];
export const PAYMENT_ANOMALY_STATUSES = ['open', 'resolved'] as const;
export type PaymentAnomalyStatus = (typeof PAYMENT_ANOMALY_STATUSES)[number];

export interface PaymentAnomalyView {
  id: string;
  kind: PaymentAnomalyKind;
  orderId: string;
  transactionId: string;
  transactionReference: string;
  amount: number;
  currency: string;
  destinationAccountId: string;
  details: Record<string, unknown>;
  status: PaymentAnomalyStatus;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolution: string | null;
}

export interface ResolvePaymentAnomalyRequest {
  /** what was done, e.g. the reference of the reversal transaction */
  resolution: string;
  resolvedBy: string;
}
