import type { ConnectionStatus, ConnectionView, MerchantConnectionView, PartnerScope, RevokedBy } from '@mm/contracts';
import { iso } from '../common/iso';

export interface ConnectionRow {
  id: string;
  integration_id: string;
  integration_name: string;
  livemode: boolean;
  merchant_id: string | null;
  merchant_ref: string;
  /** the merchantId shown to the integration until the merchant accepts (see toConnectionView) */
  pending_ref: string;
  /** effective status: a pending request past its end reads as expired even before the sweeper runs */
  status: ConnectionStatus;
  scopes: PartnerScope[];
  requested_reason: string | null;
  pending_expires_at: Date;
  activated_at: Date | null;
  revoked_at: Date | null;
  revoked_by: RevokedBy | null;
  created_at: Date;
  updated_at: Date;
}

/** Columns of `partners.connections c JOIN partners.integrations i`, with the effective status. */
export const CONNECTION_COLUMNS = `c.id, c.integration_id, i.name AS integration_name, c.livemode, c.merchant_id, c.merchant_ref, c.pending_ref,
  CASE WHEN c.status = 'pending' AND c.pending_expires_at <= now() THEN 'expired' ELSE c.status END AS status,
  c.scopes, c.requested_reason, c.pending_expires_at, c.activated_at, c.revoked_at, c.revoked_by, c.created_at, c.updated_at`;

export const EFFECTIVE_STATUS = `CASE WHEN c.status = 'pending' AND c.pending_expires_at <= now() THEN 'expired' ELSE c.status END`;

/**
 * The integration's view. Anti-enumeration: until the merchant accepted, `merchantId` is the
 * phone's pseudonym for this integration and mode, whether or not the phone is a merchant's (the
 * merchant's own id would be the same for every integration and in both modes, a pseudonym is
 * not: comparing answers would tell). Once accepted, it is the id orders are created with.
 */
export function toConnectionView(row: ConnectionRow): ConnectionView {
  return {
    id: row.id,
    integrationId: row.integration_id,
    merchantId: row.activated_at ? row.merchant_ref : row.pending_ref,
    status: row.status,
    scopes: row.scopes,
    requestedReason: row.requested_reason,
    pendingExpiresAt: row.pending_expires_at.toISOString(),
    activatedAt: iso(row.activated_at),
    revokedAt: iso(row.revoked_at),
    revokedBy: row.revoked_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    livemode: row.livemode,
  };
}

const SCOPE_WORDS: Record<PartnerScope, string> = {
  'orders.write': 'Create payment orders (QR codes) in your name',
  'orders.read': 'See the status of the payment orders it created',
};

export function toMerchantView(row: ConnectionRow): MerchantConnectionView {
  return {
    id: row.id,
    integrationId: row.integration_id,
    integrationName: row.integration_name,
    merchantId: row.merchant_ref,
    status: row.status,
    scopes: row.scopes,
    scopeDescriptions: row.scopes.map((s) => SCOPE_WORDS[s]),
    requestedReason: row.requested_reason,
    pendingExpiresAt: row.pending_expires_at.toISOString(),
    activatedAt: iso(row.activated_at),
    revokedAt: iso(row.revoked_at),
    revokedBy: row.revoked_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
