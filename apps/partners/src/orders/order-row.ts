import type { OrderStatus } from '@mm/contracts';
import { money } from '../common/iso';

export interface OrderRow {
  id: string;
  integration_id: string;
  connection_id: string;
  merchant_id: string;
  livemode: boolean;
  qr_token: string;
  amount: string;
  currency: string;
  description: string | null;
  external_reference: string | null;
  destination_account_id: string | null;
  status: OrderStatus;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  expired_at: Date | null;
  ledger_transaction_id: string | null;
  transaction_reference: string | null;
}

export const ORDER_COLUMNS = `id, integration_id, connection_id, merchant_id, livemode, qr_token, amount, currency, description, external_reference,
  destination_account_id, status, created_at, expires_at, paid_at, expired_at, ledger_transaction_id, transaction_reference`;

export interface OrderView {
  orderId: string;
  qrToken: string;
  status: OrderStatus;
  amount: number;
  currencyCode: string;
  expiresAt: string;
  merchantId: string;
  integrationId: string;
  description?: string;
  externalReference?: string;
  createdAt: string;
  paidAt: string | null;
  livemode: boolean;
}

/** The partner API's Order (docs/partners.md "4. Orders"), its documented fields first, then what this API adds. */
export function toOrderView(row: OrderRow): OrderView {
  return {
    orderId: row.id,
    qrToken: row.qr_token,
    status: row.status,
    amount: money(row.amount),
    currencyCode: row.currency,
    expiresAt: row.expires_at.toISOString(),
    merchantId: row.merchant_id,
    integrationId: row.integration_id,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.external_reference !== null ? { externalReference: row.external_reference } : {}),
    createdAt: row.created_at.toISOString(),
    paidAt: row.paid_at ? row.paid_at.toISOString() : null,
    livemode: row.livemode,
  };
}

/** Only what was given at creation: the optional fields of order.paid and order.expired. */
export function givenExtras(row: OrderRow): { externalReference?: string; description?: string } {
  return {
    ...(row.external_reference !== null ? { externalReference: row.external_reference } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
  };
}
