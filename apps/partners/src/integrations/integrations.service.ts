import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CreatedIntegration, IntegrationView, Page, PartnerMode, RotatedWebhookSecret, WebhookEndpointView } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { cursorClause, decodeCursor, pageOf } from '../common/cursor';
import { iso } from '../common/iso';
import { ApiKeysService } from '../keys/api-keys.service';
import { DispatcherEndpointsClient } from '../upstreams/dispatcher-endpoints.client';
import type { CreateIntegrationDto } from './dto/integration.dto';

interface IntegrationRow {
  id: string;
  name: string;
  technical_contact_email: string;
  status: 'active' | 'revoked';
  test_endpoint_id: string;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, name, technical_contact_email, status, test_endpoint_id, revoked_at, created_at, updated_at`;

function toView(row: IntegrationRow): IntegrationView {
  return {
    id: row.id,
    name: row.name,
    technicalContactEmail: row.technical_contact_email,
    status: row.status,
    revokedAt: iso(row.revoked_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Admin side of integrations: creation (keys and webhook secrets shown once), listing, revocation, webhook endpoint. */
@Injectable()
export class IntegrationsService {
  private readonly logger = new Logger(IntegrationsService.name);

  constructor(
    private readonly db: DataSource,
    private readonly keys: ApiKeysService,
    private readonly endpoints: DispatcherEndpointsClient,
  ) {}

  /**
   * The integration, one live and one test key, and the two webhook endpoints at the dispatcher.
   * The endpoints are created before the database commit: if the dispatcher refuses (bad URL) or is
   * down, nothing is committed and the admin can simply retry.
   */
  async create(dto: CreateIntegrationDto): Promise<CreatedIntegration> {
    const id = randomUUID();
    const testEndpointId = randomUUID();
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<IntegrationRow>(
        tx,
        `INSERT INTO partners.integrations (id, name, technical_contact_email, test_endpoint_id, created_by)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [id, dto.name, dto.technicalContactEmail.toLowerCase(), testEndpointId, dto.createdBy],
      );
      const live = await this.keys.issue(id, 'live', dto.createdBy, tx);
      const test = await this.keys.issue(id, 'test', dto.createdBy, tx);
      const liveSecret = await this.endpoints.create(id, dto.webhookUrl);
      const testSecret = await this.endpoints.create(testEndpointId, dto.testWebhookUrl ?? dto.webhookUrl);
      this.logger.log({ msg: 'integration created', integrationId: id, createdBy: dto.createdBy });
      return {
        integration: toView(rows[0]),
        apiKeys: { live, test },
        webhookSecrets: { live: liveSecret.secret, test: testSecret.secret },
      };
    });
  }

  async get(id: string): Promise<IntegrationView> {
    return toView(await this.row(id));
  }

  async list(cursorRaw: string | undefined, limit: number): Promise<Page<IntegrationView>> {
    const params: unknown[] = [];
    const where = cursorClause(decodeCursor(cursorRaw), params);
    params.push(limit + 1);
    const rows = await queryRows<IntegrationRow>(
      this.db,
      `SELECT ${COLUMNS} FROM partners.integrations WHERE true${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return pageOf(rows, limit, toView);
  }

  /**
   * Every key of the integration stops working (401 INTEGRATION_REVOKED) and its open connections
   * are revoked by `admin`. Orders already issued stay payable until they expire: their QR codes
   * are in customers' hands, and the money goes to the merchant, not to the integration.
   */
  async revoke(id: string, revokedBy: string): Promise<IntegrationView> {
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<IntegrationRow>(
        tx,
        `UPDATE partners.integrations
            SET status = 'revoked', revoked_at = COALESCE(revoked_at, now()), revoked_by = COALESCE(revoked_by, $2), updated_at = now()
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, revokedBy],
      );
      if (rows.length === 0) throw new AppException('INTEGRATION_NOT_FOUND');
      await tx.query(
        `UPDATE partners.connections SET status = 'revoked', revoked_at = now(), revoked_by = 'admin', updated_at = now()
          WHERE integration_id = $1 AND status IN ('pending', 'active')`,
        [id],
      );
      this.logger.warn({ msg: 'integration revoked', integrationId: id, revokedBy });
      return toView(rows[0]);
    });
  }

  async setWebhookUrl(id: string, mode: PartnerMode, url: string): Promise<WebhookEndpointView> {
    const endpoint = await this.endpointId(id, mode);
    const answer = await this.endpoints.setUrl(endpoint, url);
    return { mode, url: answer.url, status: answer.status };
  }

  async rotateWebhookSecret(id: string, mode: PartnerMode): Promise<RotatedWebhookSecret> {
    const endpoint = await this.endpointId(id, mode);
    const rotated = await this.endpoints.rotateSecret(endpoint);
    this.logger.log({ msg: 'webhook secret rotated', integrationId: id, mode });
    return { mode, ...rotated };
  }

  /** The dispatcher endpoint id that receives the integration's events of a mode. */
  async endpointId(id: string, mode: PartnerMode): Promise<string> {
    const row = await this.row(id);
    return mode === 'live' ? row.id : row.test_endpoint_id;
  }

  private async row(id: string): Promise<IntegrationRow> {
    const rows = await queryRows<IntegrationRow>(this.db, `SELECT ${COLUMNS} FROM partners.integrations WHERE id = $1`, [id]);
    if (rows.length === 0) throw new AppException('INTEGRATION_NOT_FOUND');
    return rows[0];
  }
}
