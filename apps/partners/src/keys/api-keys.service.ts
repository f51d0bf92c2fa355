import { randomUUID, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ApiKeyView, IssuedApiKey, PartnerMode } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { iso } from '../common/iso';
import { PartnersConfig } from '../partners.config';
import { generateApiKey, keyHint, parseApiKey } from './api-key';
import type { PartnerPrincipal } from './partner-principal';

interface KeyRow {
  id: string;
  livemode: boolean;
  last4: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  now: Date;
}

const KEY_COLUMNS = `id, livemode, last4, created_at, expires_at, revoked_at, now() AS now`;

function statusOf(row: KeyRow): ApiKeyView['status'] {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at) return row.expires_at <= row.now ? 'expired' : 'expiring';
  return 'active';
}

function toView(row: KeyRow): ApiKeyView {
  const mode: PartnerMode = row.livemode ? 'live' : 'test';
  return {
    id: row.id,
    mode,
    hint: keyHint(mode, row.last4),
    status: statusOf(row),
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
  };
}

/** Issuance, rotation, revocation and verification of integration API keys. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly db: DataSource,
    private readonly config: PartnersConfig,
  ) {}

  /**
   * The integration behind a bearer key. Shape and checksum are checked before any query; the
   * lookup is by the key's hash (unique index) and the stored hash is compared in constant time.
   * A missing, malformed, unknown, expired or revoked key: INVALID_INTEGRATION_CREDENTIALS; a valid
   * key of a revoked integration: INTEGRATION_REVOKED.
   */
  async authenticate(rawKey: string | undefined): Promise<PartnerPrincipal> {
    const parsed = rawKey === undefined ? null : parseApiKey(rawKey);
    if (!parsed) throw new AppException('INVALID_INTEGRATION_CREDENTIALS');
    const rows: {
      id: string;
      integration_id: string;
      livemode: boolean;
      key_hash: Buffer;
      usable: boolean;
      integration_status: string;
    }[] = await this.db.query(
      `SELECT k.id, k.integration_id, k.livemode, k.key_hash, i.status AS integration_status,
              (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS usable
         FROM partners.api_keys k JOIN partners.integrations i ON i.id = k.integration_id
        WHERE k.key_hash = $1`,
      [parsed.hash],
    );
    const row = rows[0];
    const matches = row !== undefined && timingSafeEqual(row.key_hash, parsed.hash) && row.livemode === (parsed.mode === 'live');
    if (!matches || !row.usable) throw new AppException('INVALID_INTEGRATION_CREDENTIALS');
    if (row.integration_status !== 'active') throw new AppException('INTEGRATION_REVOKED');
    return { integrationId: row.integration_id, keyId: row.id, mode: parsed.mode, livemode: row.livemode };
  }

  /** A new key for the integration; the returned `key` is the only copy that will ever exist. */
  async issue(integrationId: string, mode: PartnerMode, createdBy: string, tx?: EntityManager): Promise<IssuedApiKey> {
    const generated = generateApiKey(mode);
    const rows = await queryRows<KeyRow>(
      tx ?? this.db,
      `INSERT INTO partners.api_keys (id, integration_id, livemode, key_hash, last4, created_by)
       SELECT $1, $2, $3, $4, $5, $6 FROM partners.integrations WHERE id = $2
       RETURNING ${KEY_COLUMNS}`,
      [randomUUID(), integrationId, mode === 'live', generated.hash, generated.last4, createdBy],
    );
    if (rows.length === 0) throw new AppException('INTEGRATION_NOT_FOUND');
    return { ...toView(rows[0]), key: generated.key };
  }

  async list(integrationId: string): Promise<ApiKeyView[]> {
    const rows = await queryRows<KeyRow>(
      this.db,
      `SELECT ${KEY_COLUMNS} FROM partners.api_keys WHERE integration_id = $1 ORDER BY created_at, id`,
      [integrationId],
    );
    return rows.map(toView);
  }

  /**
   * A new key of the same mode; the old one keeps working for `overlapSeconds` (so the partner can
   * deploy the new key without downtime), then stops. Rotating a key that is already expiring
   * shortens nothing: its end stays the earlier of the two.
   */
  async rotate(integrationId: string, keyId: string, overlapSeconds: number | undefined, createdBy: string): Promise<IssuedApiKey> {
    const overlap = overlapSeconds ?? this.config.PARTNERS_KEY_ROTATION_OVERLAP_SEC;
    return this.db.transaction(async (tx) => {
      const current = await queryRows<KeyRow>(
        tx,
        `SELECT ${KEY_COLUMNS} FROM partners.api_keys WHERE id = $1 AND integration_id = $2 FOR UPDATE`,
        [keyId, integrationId],
      );
      if (current.length === 0) throw new AppException('API_KEY_NOT_FOUND');
      const status = statusOf(current[0]);
      if (status === 'revoked' || status === 'expired') throw new AppException('CONFLICT', `The key is ${status}: issue a new one instead`);
      const issued = await this.issue(integrationId, current[0].livemode ? 'live' : 'test', createdBy, tx);
      await tx.query(
        `UPDATE partners.api_keys
            SET rotated_to = $2,
                expires_at = LEAST(COALESCE(expires_at, 'infinity'), now() + $3::int * interval '1 second')
          WHERE id = $1`,
        [keyId, issued.id, overlap],
      );
      return issued;
    });
  }

  /** The key stops working at once (401 INVALID_INTEGRATION_CREDENTIALS); revoking twice is harmless. */
  async revoke(integrationId: string, keyId: string): Promise<ApiKeyView> {
    const rows = await queryRows<KeyRow>(
      this.db,
      `UPDATE partners.api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE id = $1 AND integration_id = $2 RETURNING ${KEY_COLUMNS}`,
      [keyId, integrationId],
    );
    if (rows.length === 0) throw new AppException('API_KEY_NOT_FOUND');
    return toView(rows[0]);
  }
}
