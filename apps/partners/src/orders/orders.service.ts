import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Currency, QrOrderResolution } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { randomBase62 } from '../common/base62';
import { money } from '../common/iso';
import type { PartnerPrincipal } from '../keys/partner-principal';
import { PartnersConfig } from '../partners.config';
import { MerchantDirectoryClient } from '../upstreams/merchant-directory.client';
import { type CreateOrderDto, TTL_DEFAULT_SEC } from './dto/create-order.dto';
import { requestHash } from './order-idempotency';
import { ORDER_COLUMNS, type OrderRow, type OrderView, toOrderView } from './order-row';

/** The answer of order creation: the exact bytes to send, and whether they are a replay. */
export interface CreatedOrderResponse {
  body: string;
  replayed: boolean;
}

interface StoredKey {
  request_hash: Buffer;
  response_body: string | null;
}

/** 43 base62 characters ≈ 256 bits: a QR token cannot be guessed, and it says nothing about the order. */
export function newQrToken(): string {
  return `pqr_${randomBase62(43)}`;
}

@Injectable()
export class OrdersService {
  constructor(
    private readonly db: DataSource,
    private readonly directory: MerchantDirectoryClient,
    private readonly config: PartnersConfig,
  ) {}

  /**
   * `POST /partners-public/orders` (docs/partners.md "4. Orders"). With an Idempotency-Key, the first successful answer is
   * kept for 24 h and returned byte for byte for the same key and the same body (even if the
   * connection has changed since), while another body under that key is 422 IDEMPOTENCY_KEY_CONFLICT.
   * Concurrent requests with one key serialise on the key's row: one creates the order, the others
   * wait for its commit and replay its answer. A refused request (4xx) is not remembered.
   */
  async create(partner: PartnerPrincipal, dto: CreateOrderDto, idempotencyKey: string | undefined): Promise<CreatedOrderResponse> {
    const hash = idempotencyKey === undefined ? undefined : requestHash(dto);
    if (idempotencyKey !== undefined) {
      const earlier = await this.storedAnswer(this.db.manager, partner, idempotencyKey, hash!);
      if (earlier) return earlier;
    }

    const merchantRef = dto.merchantId.toLowerCase();
    const currency: Currency = dto.currencyCode ?? 'XAF';
    const connection = await this.activeConnection(partner, merchantRef);
    if (!connection.scopes.includes('orders.write')) throw new AppException('MISSING_SCOPE', 'The connection lacks the scope orders.write');
    const destination = partner.livemode ? await this.destinationAccount(merchantRef, currency) : null;

    const outcome = await this.db.transaction(async (tx): Promise<CreatedOrderResponse | 'lost-race'> => {
      if (idempotencyKey !== undefined) {
        const claimed = await queryRows<{ key: string }>(
          tx,
          `INSERT INTO partners.idempotency_keys (integration_id, livemode, key, request_hash, expires_at)
           VALUES ($1, $2, $3, $4, now() + $5::int * interval '1 second')
           ON CONFLICT (integration_id, livemode, key) DO UPDATE
             SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL, order_id = NULL,
                 created_at = now(), expires_at = EXCLUDED.expires_at
             WHERE partners.idempotency_keys.expires_at <= now()
           RETURNING key`,
          [partner.integrationId, partner.livemode, idempotencyKey, hash, this.config.PARTNERS_IDEMPOTENCY_TTL_SEC],
        );
        // Another request with this key committed first (we waited for it): replay its answer.
        if (claimed.length === 0) return 'lost-race';
      }
      const order = await this.insertOrder(tx, connection.id, currency, destination, dto);
      const body = JSON.stringify(toOrderView(order));
      if (idempotencyKey !== undefined) {
        await tx.query(
          `UPDATE partners.idempotency_keys SET response_status = 201, response_body = $4, order_id = $5
            WHERE integration_id = $1 AND livemode = $2 AND key = $3`,
          [partner.integrationId, partner.livemode, idempotencyKey, body, order.id],
        );
      }
      return { body, replayed: false };
    });
    if (outcome !== 'lost-race') return outcome;
    const winner = await this.storedAnswer(this.db.manager, partner, idempotencyKey!, hash!);
    if (!winner) throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS');
    return winner;
  }

  /** The GET of an order (docs/partners.md "4. Orders"): the caller's own order, through a connection that still grants orders.read. */
  async get(partner: PartnerPrincipal, orderId: string): Promise<OrderView> {
    const rows = await queryRows<OrderRow & { scopes: string[] | null }>(
      this.db,
      `SELECT o.*, c.scopes FROM partners.orders o
         LEFT JOIN partners.connections c
           ON c.integration_id = o.integration_id AND c.livemode = o.livemode AND c.merchant_ref = o.merchant_id AND c.status = 'active'
        WHERE o.id = $1 AND o.integration_id = $2 AND o.livemode = $3`,
      [orderId, partner.integrationId, partner.livemode],
    );
    if (rows.length === 0) throw new AppException('ORDER_NOT_FOUND');
    const row = rows[0];
    if (!row.scopes) throw new AppException('NO_ACTIVE_CONNECTION');
    if (!row.scopes.includes('orders.read')) throw new AppException('MISSING_SCOPE', 'The connection lacks the scope orders.read');
    return toOrderView(row);
  }

  /** What the QR-pay path needs (libs/contracts QrOrderResolution); test orders never resolve. */
  async resolveQr(qrToken: string): Promise<QrOrderResolution> {
    const rows = await queryRows<OrderRow & { integration_name: string; payable: boolean; pay_by: Date }>(
      this.db,
      `SELECT o.*, i.name AS integration_name,
              (o.status = 'pending' AND o.expires_at > now()) AS payable,
              o.expires_at + make_interval(secs => $2 / 2.0) AS pay_by
         FROM partners.orders o JOIN partners.integrations i ON i.id = o.integration_id
        WHERE o.qr_token = $1 AND o.livemode`,
      [qrToken, this.config.PARTNERS_ORDER_EXPIRY_GRACE_SEC],
    );
    if (rows.length === 0) throw new AppException('QR_NOT_FOUND');
    const o = rows[0];
    return {
      orderId: o.id,
      qrToken: o.qr_token,
      status: o.status,
      payable: o.payable,
      merchantId: o.merchant_id,
      destinationAccountId: o.destination_account_id!,
      amount: money(o.amount),
      currencyCode: o.currency as Currency,
      expiresAt: o.expires_at.toISOString(),
      payBy: o.pay_by.toISOString(),
      integrationId: o.integration_id,
      integrationName: o.integration_name,
      description: o.description,
    };
  }

  private async storedAnswer(
    db: EntityManager,
    partner: PartnerPrincipal,
    key: string,
    hash: Buffer,
  ): Promise<CreatedOrderResponse | null> {
    const rows = await queryRows<StoredKey>(
      db,
      `SELECT request_hash, response_body FROM partners.idempotency_keys
        WHERE integration_id = $1 AND livemode = $2 AND key = $3 AND expires_at > now()`,
      [partner.integrationId, partner.livemode, key],
    );
    const stored = rows[0];
    if (!stored) return null;
    if (!stored.request_hash.equals(hash))
      throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This Idempotency-Key was used with another request body');
    if (stored.response_body === null) throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS');
    return { body: stored.response_body, replayed: true };
  }

  private async activeConnection(partner: PartnerPrincipal, merchantRef: string): Promise<{ id: string; scopes: string[] }> {
    const rows = await queryRows<{ id: string; scopes: string[] }>(
      this.db,
      `SELECT id, scopes FROM partners.connections WHERE integration_id = $1 AND livemode = $2 AND merchant_ref = $3 AND status = 'active'`,
      [partner.integrationId, partner.livemode, merchantRef],
    );
    if (rows.length === 0) throw new AppException('NO_ACTIVE_CONNECTION');
    return rows[0];
  }

  /** The merchant's ledger account in the currency: the account the payment must credit. */
  private async destinationAccount(merchantId: string, currency: Currency): Promise<string> {
    const merchant = await this.directory.byId(merchantId);
    if (!merchant || merchant.status !== 'active') throw new AppException('MERCHANT_UNAVAILABLE');
    const account = merchant.accounts[currency];
    if (!account) throw new AppException('MERCHANT_CURRENCY_UNAVAILABLE', `The merchant has no ${currency} account`);
    return account.toLowerCase();
  }

  private async insertOrder(
    tx: EntityManager,
    connectionId: string,
    currency: Currency,
    destination: string | null,
    dto: CreateOrderDto,
  ): Promise<OrderRow> {
    // INSERT … SELECT from the connection: a connection revoked since the check creates nothing.
    const rows = await queryRows<OrderRow>(
      tx,
      `INSERT INTO partners.orders (id, integration_id, connection_id, merchant_id, livemode, qr_token, amount, currency,
                                    description, external_reference, destination_account_id, created_at, expires_at)
       SELECT $1, c.integration_id, c.id, c.merchant_ref, c.livemode, $3, $4, $5, $6, $7, $8, t.at, t.at + $9::int * interval '1 second'
         FROM partners.connections c, (SELECT now()::timestamptz(3) AS at) t
        WHERE c.id = $2 AND c.status = 'active'
       RETURNING ${ORDER_COLUMNS}`,
      [
        randomUUID(),
        connectionId,
        newQrToken(),
        dto.amount,
        currency,
        dto.description ?? null,
        dto.externalReference ?? null,
        destination,
        dto.ttlSeconds ?? TTL_DEFAULT_SEC,
      ],
    );
    if (rows.length === 0) throw new AppException('NO_ACTIVE_CONNECTION');
    return rows[0];
  }
}
