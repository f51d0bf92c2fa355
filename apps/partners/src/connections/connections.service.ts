import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ConnectionStatus, ConnectionView, MerchantConnectionView, Page, PartnerScope } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { cursorClause, decodeCursor, pageOf } from '../common/cursor';
import type { PartnerPrincipal } from '../keys/partner-principal';
import { PartnersConfig } from '../partners.config';
import { MerchantDirectoryClient } from '../upstreams/merchant-directory.client';
import { CONNECTION_COLUMNS, type ConnectionRow, EFFECTIVE_STATUS, toConnectionView, toMerchantView } from './connection-row';
import { MerchantPseudonyms } from './merchant-pseudonym';

export interface ConnectionRequestResult {
  connectionId: string;
  status: ConnectionStatus;
  expiresAt: string;
  alreadyExisted: boolean;
}

const FROM = `FROM partners.connections c JOIN partners.integrations i ON i.id = c.integration_id`;

/** Connection requests, reads and lists (moves between states are ConnectionTransitions). */
@Injectable()
export class ConnectionsService {
  private readonly pseudonyms: MerchantPseudonyms;

  constructor(
    private readonly db: DataSource,
    private readonly directory: MerchantDirectoryClient,
    private readonly config: PartnersConfig,
  ) {
    let secret = config.PARTNERS_PSEUDONYM_SECRET;
    if (!secret) {
      // development only (the config refuses an empty secret elsewhere)
      new Logger(ConnectionsService.name).warn(
        'PARTNERS_PSEUDONYM_SECRET is not set: using a per-boot key (development only); pseudonyms change when this process restarts.',
      );
      secret = randomBytes(32).toString('hex');
    }
    this.pseudonyms = new MerchantPseudonyms(secret);
  }

  /**
   * `POST /partners-public/connections/request` (docs/partners.md "3. Connecting to a merchant"). Anti-enumeration: whether the phone belongs
   * to an active merchant or not, the same statements run and the same answer comes back; an
   * unknown phone gets a request row that nobody will ever see (it has no merchant) and that simply
   * expires; until a merchant accepts, the integration sees the phone's pseudonym as `merchantId`
   * either way (toConnectionView); and the answer, or the error, leaves no sooner than
   * PARTNERS_CONNECTION_REQUEST_MIN_MS after this method began (the directory look-up and the
   * insert take slightly different times for the two cases; the floor hides that difference). An
   * open (pending or active) connection for the same merchant is returned as it is
   * (`alreadyExisted: true`, its own scopes): to change scopes, revoke it and ask again.
   */
  async request(
    partner: PartnerPrincipal,
    phone: string,
    scopes: PartnerScope[],
    reason: string | undefined,
  ): Promise<ConnectionRequestResult> {
    const started = performance.now();
    try {
      return await this.requestNow(partner, phone, scopes, reason);
    } finally {
      const left = this.config.PARTNERS_CONNECTION_REQUEST_MIN_MS - (performance.now() - started);
      if (left > 0) await sleep(left);
    }
  }

  private async requestNow(
    partner: PartnerPrincipal,
    phone: string,
    scopes: PartnerScope[],
    reason: string | undefined,
  ): Promise<ConnectionRequestResult> {
    // Test mode never reaches a merchant: no look-up, so nothing of the directory shows there.
    const merchant = partner.livemode ? await this.directory.byPhone(phone) : null;
    const merchantId = merchant?.status === 'active' ? merchant.merchantId.toLowerCase() : null;
    const pseudonym = this.pseudonyms.of(partner.integrationId, partner.livemode, phone);
    const ref = merchantId ?? pseudonym;
    const unique = [...new Set(scopes)].sort().reverse() as PartnerScope[];
    return this.db.transaction(async (tx) => {
      // A pending request past its end no longer blocks a new one.
      await tx.query(
        `UPDATE partners.connections SET status = 'expired', expired_at = now(), updated_at = now()
          WHERE integration_id = $1 AND livemode = $2 AND merchant_ref = $3 AND status = 'pending' AND pending_expires_at <= now()`,
        [partner.integrationId, partner.livemode, ref],
      );
      const inserted = await queryRows<{ id: string; status: ConnectionStatus; pending_expires_at: Date }>(
        tx,
        `INSERT INTO partners.connections (id, integration_id, livemode, merchant_id, merchant_ref, pending_ref, status, scopes, requested_reason, pending_expires_at)
         VALUES ($1, $2, $3, $4, $5, $9, 'pending', $6::text[], $7, now() + $8::int * interval '1 second')
         ON CONFLICT (integration_id, livemode, merchant_ref) WHERE status IN ('pending', 'active') DO NOTHING
         RETURNING id, status, pending_expires_at`,
        [
          randomUUID(),
          partner.integrationId,
          partner.livemode,
          merchantId,
          ref,
          unique,
          reason ?? null,
          this.config.PARTNERS_CONNECTION_PENDING_TTL_SEC,
          pseudonym,
        ],
      );
      const row =
        inserted[0] ??
        (
          await queryRows<{ id: string; status: ConnectionStatus; pending_expires_at: Date }>(
            tx,
            `SELECT id, status, pending_expires_at FROM partners.connections
              WHERE integration_id = $1 AND livemode = $2 AND merchant_ref = $3 AND status IN ('pending', 'active')`,
            [partner.integrationId, partner.livemode, ref],
          )
        )[0];
      return { connectionId: row.id, status: row.status, expiresAt: row.pending_expires_at.toISOString(), alreadyExisted: !inserted[0] };
    });
  }

  /** One of the caller's connections (same mode); anything else is CONNECTION_NOT_FOUND. */
  async getForIntegration(partner: PartnerPrincipal, id: string): Promise<ConnectionView> {
    const rows = await queryRows<ConnectionRow>(
      this.db,
      `SELECT ${CONNECTION_COLUMNS} ${FROM} WHERE c.id = $1 AND c.integration_id = $2 AND c.livemode = $3`,
      [id, partner.integrationId, partner.livemode],
    );
    if (rows.length === 0) throw new AppException('CONNECTION_NOT_FOUND');
    return toConnectionView(rows[0]);
  }

  async listForIntegration(
    partner: PartnerPrincipal,
    status: ConnectionStatus | undefined,
    cursor: string | undefined,
    limit: number,
  ): Promise<Page<ConnectionView>> {
    const params: unknown[] = [partner.integrationId, partner.livemode];
    let where = `c.integration_id = $1 AND c.livemode = $2`;
    if (status) {
      params.push(status);
      where += ` AND ${EFFECTIVE_STATUS} = $${params.length}`;
    }
    where += cursorClause(decodeCursor(cursor), params, 'c');
    params.push(limit + 1);
    const rows = await queryRows<ConnectionRow>(
      this.db,
      `SELECT ${CONNECTION_COLUMNS} ${FROM} WHERE ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, toConnectionView);
  }

  /** The merchant's live connections; by default the ones that need or have its consent (pending and active). */
  async listForMerchant(
    merchantId: string,
    status: ConnectionStatus | undefined,
    cursor: string | undefined,
    limit: number,
  ): Promise<Page<MerchantConnectionView>> {
    const params: unknown[] = [merchantId];
    let where = `c.merchant_id = $1 AND c.livemode`;
    if (status) {
      params.push(status);
      where += ` AND ${EFFECTIVE_STATUS} = $${params.length}`;
    } else {
      where += ` AND ${EFFECTIVE_STATUS} IN ('pending', 'active')`;
    }
    where += cursorClause(decodeCursor(cursor), params, 'c');
    params.push(limit + 1);
    const rows = await queryRows<ConnectionRow>(
      this.db,
      `SELECT ${CONNECTION_COLUMNS} ${FROM} WHERE ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, toMerchantView);
  }
}
