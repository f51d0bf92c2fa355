import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { MetricsService } from '@mm/platform';
import { queryRows } from '@mm/platform';
import { throttledWarning } from '../common/throttled-warning';
import { SecretCipher, generateWebhookSecret } from '../secrets/secret-cipher';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import type { DeliveryTarget, EndpointView, HealthEventView } from './endpoint.types';
import { WebhookTargetPolicy } from './webhook-target.policy';

interface EndpointRow {
  integration_id: string;
  url: string;
  status: 'enabled' | 'disabled';
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const VIEW_COLUMNS = `integration_id, url, status, failing_since, disabled_at, disabled_reason, previous_secret_expires_at, created_at, updated_at`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toView(row: EndpointRow): EndpointView {
  return {
    integrationId: row.integration_id,
    url: row.url,
    status: row.status,
    failingSince: iso(row.failing_since),
    disabledAt: iso(row.disabled_at),
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: iso(row.previous_secret_expires_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * One endpoint per integration: its URL, its secret (encrypted at rest, rotated with an overlap)
 * and its health. Time comparisons use the database clock so that every instance agrees.
 */
@Injectable()
export class EndpointsService {
  private readonly logger = new Logger(EndpointsService.name);
  private readonly disabledCounter;
  private readonly warnUnreadableSecret = throttledWarning(
    this.logger,
    'webhook endpoint secret cannot be decrypted: WEBHOOK_SECRET_ENCRYPTION_KEY is not the key it was stored with; attempts fail (WEBHOOK_SECRET_UNREADABLE) until that key is restored or the secret rotated',
    60_000,
  );

  constructor(
    private readonly db: DataSource,
    private readonly cipher: SecretCipher,
    private readonly config: WebhookDispatcherConfig,
    private readonly targets: WebhookTargetPolicy,
    metrics: MetricsService,
  ) {
    this.disabledCounter = metrics.counter('webhook_endpoints_disabled_total', 'Endpoints disabled after sustained delivery failure');
  }

  /**
   * Creates or re-points the endpoint. A new endpoint gets a secret, returned this once only. The URL
   * must pass the SSRF policy (https in production, no credentials, no internal address).
   */
  async setUrl(integrationId: string, rawUrl: string): Promise<{ endpoint: EndpointView; secret?: string }> {
    const url = await this.targets.checkForRegistration(rawUrl);
    const secret = generateWebhookSecret();
    const rows: (EndpointRow & { created: boolean })[] = await this.db.query(
      `INSERT INTO webhooks.endpoints (integration_id, url, secret_ciphertext) VALUES ($1, $2, $3)
       ON CONFLICT (integration_id) DO UPDATE SET url = EXCLUDED.url, updated_at = now()
       RETURNING ${VIEW_COLUMNS}, (xmax = 0) AS created`,
      [integrationId, url, this.cipher.encrypt(secret, integrationId)],
    );
    const row = rows[0];
    return row.created ? { endpoint: toView(row), secret } : { endpoint: toView(row) };
  }

  async get(integrationId: string): Promise<EndpointView> {
    const rows: EndpointRow[] = await this.db.query(`SELECT ${VIEW_COLUMNS} FROM webhooks.endpoints WHERE integration_id = $1`, [
      integrationId,
    ]);
    if (rows.length === 0) throw new AppException('WEBHOOK_ENDPOINT_NOT_FOUND');
    return toView(rows[0]);
  }

  /**
   * New secret now; the previous one keeps signing (a second `v1=`) until the overlap ends, so a
   * partner can deploy the new secret without losing a delivery. A rotation during an overlap drops
   * the older previous secret: at most two secrets sign at any time.
   */
  async rotateSecret(integrationId: string): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
    const secret = generateWebhookSecret();
    return this.db.transaction(async (tx) => {
      const rows: { secret_ciphertext: Buffer }[] = await tx.query(
        `SELECT secret_ciphertext FROM webhooks.endpoints WHERE integration_id = $1 FOR UPDATE`,
        [integrationId],
      );
      if (rows.length === 0) throw new AppException('WEBHOOK_ENDPOINT_NOT_FOUND');
      const overlapMs = this.config.WEBHOOK_SECRET_ROTATION_OVERLAP_MS;
      const updated = await queryRows<{ previous_secret_expires_at: Date | null }>(
        tx,
        `UPDATE webhooks.endpoints
            SET secret_ciphertext = $2,
                previous_secret_ciphertext = CASE WHEN $4::bigint > 0 THEN $3::bytea END,
                previous_secret_expires_at = CASE WHEN $4::bigint > 0 THEN now() + $4::bigint * interval '1 millisecond' END,
                updated_at = now()
          WHERE integration_id = $1
          RETURNING previous_secret_expires_at`,
        [integrationId, this.cipher.encrypt(secret, integrationId), rows[0].secret_ciphertext, overlapMs],
      );
      this.logger.log({ msg: 'webhook secret rotated', integrationId, overlapMs });
      return { secret, previousSecretExpiresAt: iso(updated[0].previous_secret_expires_at) };
    });
  }

  /** The URL and the secrets that sign an attempt made now (current first, previous during the overlap). */
  async deliveryTarget(integrationId: string): Promise<DeliveryTarget> {
    const rows: { url: string; status: string; secret_ciphertext: Buffer; previous: Buffer | null; failing: boolean }[] =
      await this.db.query(
        `SELECT url, status, secret_ciphertext, failing_since IS NOT NULL AS failing,
              CASE WHEN previous_secret_expires_at > now() THEN previous_secret_ciphertext END AS previous
         FROM webhooks.endpoints WHERE integration_id = $1`,
        [integrationId],
      );
    if (rows.length === 0) return { kind: 'hold', reason: 'no_endpoint' };
    const row = rows[0];
    if (row.status !== 'enabled') return { kind: 'hold', reason: 'endpoint_disabled' };
    const current = this.readSecret(row.secret_ciphertext, integrationId);
    if (current === undefined) return { kind: 'secret_unreadable', url: row.url, failing: row.failing };
    // A previous secret that cannot be read (a rotation after a key change keeps the unreadable one
    // for the overlap) is left out: the current one still signs.
    const previous = row.previous ? this.readSecret(row.previous, integrationId) : undefined;
    return { kind: 'deliver', url: row.url, secrets: previous === undefined ? [current] : [current, previous], failing: row.failing };
  }

  /** The secret in clear, or undefined when this key cannot decrypt it (logged, throttled). */
  private readSecret(ciphertext: Buffer, integrationId: string): string | undefined {
    try {
      return this.cipher.decrypt(ciphertext, integrationId);
    } catch (error) {
      // After a key change every endpoint fails alike: one line per interval says so, and each
      // attempt records its own failure.
      this.warnUnreadableSecret(error as Error);
      return undefined;
    }
  }

  async recordSuccess(integrationId: string): Promise<void> {
    await this.db.query(
      `UPDATE webhooks.endpoints SET failing_since = NULL, updated_at = now() WHERE integration_id = $1 AND failing_since IS NOT NULL`,
      [integrationId],
    );
  }

  /**
   * Notes a failed attempt. When the endpoint has not had one success for the configured window it
   * is disabled, with an operator-visible record; returns true when this call disabled it.
   */
  async recordFailure(integrationId: string): Promise<boolean> {
    const windowMs = this.config.WEBHOOK_ENDPOINT_DISABLE_AFTER_MS;
    // One statement: lock the row, decide, update, and write the health record when it disables.
    const rows: { disabled_now: boolean }[] = await this.db.query(
      `WITH cur AS (
         SELECT integration_id, failing_since,
                COALESCE(status = 'enabled' AND failing_since <= now() - $2::bigint * interval '1 millisecond', false) AS disable
           FROM webhooks.endpoints WHERE integration_id = $1 FOR UPDATE),
       upd AS (
         UPDATE webhooks.endpoints e
            SET failing_since = COALESCE(cur.failing_since, now()),
                status = CASE WHEN cur.disable THEN 'disabled' ELSE e.status END,
                disabled_at = CASE WHEN cur.disable THEN now() ELSE e.disabled_at END,
                disabled_reason = CASE WHEN cur.disable
                                       THEN 'no successful delivery since ' || to_char(cur.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                                       ELSE e.disabled_reason END,
                updated_at = now()
           FROM cur WHERE e.integration_id = cur.integration_id
         RETURNING cur.disable, e.disabled_reason),
       rec AS (
         INSERT INTO webhooks.endpoint_health_events (integration_id, kind, reason)
         SELECT $1, 'disabled', disabled_reason FROM upd WHERE upd.disable)
       SELECT disable AS disabled_now FROM upd`,
      [integrationId, windowMs],
    );
    const disabledNow = rows.length > 0 && rows[0].disabled_now;
    if (disabledNow) {
      this.disabledCounter.inc();
      this.logger.warn({
        msg: 'webhook endpoint disabled after sustained failure; its events are held until it is re-enabled',
        integrationId,
        windowMs,
      });
    }
    return disabledNow;
  }

  /** Re-enables a disabled endpoint (the caller then replays its held events). */
  async enable(integrationId: string, reason: string): Promise<EndpointView> {
    return this.db.transaction(async (tx) => {
      const current: EndpointRow[] = await tx.query(`SELECT ${VIEW_COLUMNS} FROM webhooks.endpoints WHERE integration_id = $1 FOR UPDATE`, [
        integrationId,
      ]);
      if (current.length === 0) throw new AppException('WEBHOOK_ENDPOINT_NOT_FOUND');
      if (current[0].status === 'enabled') return toView(current[0]);
      const rows = await queryRows<EndpointRow>(
        tx,
        `UPDATE webhooks.endpoints
            SET status = 'enabled', failing_since = NULL, disabled_at = NULL, disabled_reason = NULL, updated_at = now()
          WHERE integration_id = $1
          RETURNING ${VIEW_COLUMNS}`,
        [integrationId],
      );
      await tx.query(`INSERT INTO webhooks.endpoint_health_events (integration_id, kind, reason) VALUES ($1, 'enabled', $2)`, [
        integrationId,
        reason,
      ]);
      this.logger.log({ msg: 'webhook endpoint enabled', integrationId });
      return toView(rows[0]);
    });
  }

  async healthEvents(integrationId: string): Promise<HealthEventView[]> {
    await this.get(integrationId);
    const rows: { kind: 'disabled' | 'enabled'; reason: string; created_at: Date }[] = await this.db.query(
      `SELECT kind, reason, created_at FROM webhooks.endpoint_health_events WHERE integration_id = $1 ORDER BY id`,
      [integrationId],
    );
    return rows.map((r) => ({ kind: r.kind, reason: r.reason, createdAt: r.created_at.toISOString() }));
  }
}
