import { Injectable, Logger } from '@nestjs/common';
import { type ApiKeyView, PARTNER_MODES, type PartnerMode } from '@mm/contracts';
import { AppException, type FieldError } from '@mm/errors';
import { isUuid } from '@mm/platform';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler } from '../../approvals/approval-handler';
import { PartnersClient } from './partners.client';
import { type IssuedKeyRecord, KeyCollectionStore } from './key-collection.store';

export interface KeyIssuePayload {
  integrationId: string;
  mode: PartnerMode;
  /** a rotation: the key this one replaces (it keeps working for `overlapSeconds`) */
  replacesKeyId?: string;
  overlapSeconds?: number;
}

export interface KeyRevokePayload {
  integrationId: string;
  keyId: string;
}

const MAX_OVERLAP_SECONDS = 30 * 86_400;

function body(payload: unknown): Record<string, unknown> {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
}

function refuse(errors: FieldError[]): never {
  throw new AppException('VALIDATION_ERROR', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
}

function uuidField(b: Record<string, unknown>, field: string, errors: FieldError[], required = true): string | undefined {
  const value = b[field];
  if (value === undefined) {
    if (required) errors.push({ field: `payload.${field}`, code: 'REQUIRED', message: 'is required' });
    return undefined;
  }
  if (typeof value !== 'string' || !isUuid(value)) {
    errors.push({ field: `payload.${field}`, code: 'INVALID_UUID', message: 'must be a UUID' });
    return undefined;
  }
  return value.toLowerCase();
}

function onlyFields(b: Record<string, unknown>, allowed: string[], errors: FieldError[]): void {
  for (const field of Object.keys(b)) {
    if (!allowed.includes(field)) errors.push({ field: `payload.${field}`, code: 'UNKNOWN_FIELD', message: 'is not allowed' });
  }
}

async function keyOf(partners: PartnersClient, integrationId: string, keyId: string): Promise<ApiKeyView> {
  const key = (await partners.apiKeys(integrationId)).find((k) => k.id === keyId);
  if (!key) throw new AppException('API_KEY_NOT_FOUND');
  return key;
}

/**
 * PARTNER_KEY_ISSUE: a new API key for an integration, or the replacement of one (rotation). The
 * key is created when a checker approves (with the checker's id as its creator), and its secret is
 * never written to the request: the execution keeps it encrypted for the maker, who collects it
 * once (POST /api/backoffice/partners/key-requests/{id}/collect). The result shows the key id and
 * hint only. Executing again after a crash answers the key already issued. A key Redis refused to
 * keep is revoked before the execution fails (the engine runs it again and issues another), so no
 * key nobody holds stays live; a crash between issuing and keeping still leaves one (see partners.md).
 *
 * An administrator asks (`partners.manage`); a compliance officer or another administrator approves
 * (`transactions.approve`): a platform has one administrator at first, and its compliance officers
 * are the standing checkers of every other sensitive action.
 */
@Injectable()
export class PartnerKeyIssueHandler implements ApprovalHandler<KeyIssuePayload> {
  private readonly logger = new Logger(PartnerKeyIssueHandler.name);
  readonly action = 'PARTNER_KEY_ISSUE' as const;
  readonly makerPermission = 'partners.manage' as const;
  readonly checkerPermission = 'transactions.approve' as const;
  readonly fourEyesMandatory = false;

  constructor(
    private readonly partners: PartnersClient,
    private readonly collection: KeyCollectionStore,
  ) {}

  parse(payload: unknown): KeyIssuePayload {
    const b = body(payload);
    const errors: FieldError[] = [];
    onlyFields(b, ['integrationId', 'mode', 'replacesKeyId', 'overlapSeconds'], errors);
    const integrationId = uuidField(b, 'integrationId', errors);
    if (b.mode === undefined) errors.push({ field: 'payload.mode', code: 'REQUIRED', message: 'is required' });
    else if (!(PARTNER_MODES as readonly unknown[]).includes(b.mode))
      errors.push({ field: 'payload.mode', code: 'INVALID_MODE', message: 'must be live or test' });
    const replacesKeyId = uuidField(b, 'replacesKeyId', errors, false);
    const overlap = b.overlapSeconds;
    if (overlap !== undefined) {
      if (!Number.isInteger(overlap) || (overlap as number) < 0 || (overlap as number) > MAX_OVERLAP_SECONDS) {
        errors.push({
          field: 'payload.overlapSeconds',
          code: 'INVALID_OVERLAP',
          message: `must be an integer from 0 to ${MAX_OVERLAP_SECONDS}`,
        });
      }
    }
    if (errors.length > 0) refuse(errors);
    return {
      integrationId: integrationId!,
      mode: b.mode as PartnerMode,
      ...(replacesKeyId ? { replacesKeyId } : {}),
      // the overlap concerns the key replaced: without one it means nothing and is not kept
      ...(replacesKeyId && overlap !== undefined ? { overlapSeconds: overlap as number } : {}),
    };
  }

  describe(p: KeyIssuePayload) {
    return {
      target: { type: 'integration' as const, id: p.integrationId },
      summary: p.replacesKeyId
        ? `Replace ${p.mode} API key ${p.replacesKeyId} of integration ${p.integrationId}`
        : `Issue a new ${p.mode} API key for integration ${p.integrationId}`,
    };
  }

  /** One live request per integration and mode (or per key replaced). */
  dedupKey(p: KeyIssuePayload): string {
    return p.replacesKeyId ? `${p.integrationId}:replace:${p.replacesKeyId}` : `${p.integrationId}:${p.mode}`;
  }

  async prepare(p: KeyIssuePayload): Promise<null> {
    const integration = await this.partners.integration(p.integrationId);
    if (integration.status !== 'active') throw new AppException('CONFLICT', 'The integration is revoked: it can have no new key');
    if (p.replacesKeyId) {
      const key = await keyOf(this.partners, p.integrationId, p.replacesKeyId);
      if (key.mode !== p.mode)
        throw new AppException('VALIDATION_ERROR', `Key ${key.id} is a ${key.mode} key`, {
          errors: [{ field: 'payload.mode', code: 'INVALID_MODE', message: `the key replaced is a ${key.mode} key` }],
        });
      if (key.status === 'revoked' || key.status === 'expired')
        throw new AppException('CONFLICT', `The key is ${key.status}: issue a new one instead`);
    }
    return null;
  }

  async preview(p: KeyIssuePayload) {
    const integration = await this.partners.integration(p.integrationId);
    const replaces = p.replacesKeyId ? await keyOf(this.partners, p.integrationId, p.replacesKeyId) : null;
    return {
      integration: { id: integration.id, name: integration.name, status: integration.status },
      mode: p.mode,
      replaces,
      effect: replaces
        ? `A new ${p.mode} key replaces ${replaces.hint}, which keeps working for ${p.overlapSeconds === undefined ? 'the default overlap (24 h)' : `${p.overlapSeconds} s`}; the maker collects the new key once`
        : `One more ${p.mode} key for ${integration.name}; the maker collects it once`,
    };
  }

  async execute(p: KeyIssuePayload, _prepared: unknown, checker: AuthUser, requestId: string) {
    const already = await this.collection.recorded(requestId);
    if (already) return { ...already, collectBy: 'maker' };
    const issued = p.replacesKeyId
      ? await this.partners.rotateApiKey(p.integrationId, p.replacesKeyId, p.overlapSeconds, checker.userId)
      : await this.partners.issueApiKey(p.integrationId, p.mode, checker.userId);
    let record: IssuedKeyRecord;
    try {
      record = await this.collection.keep(requestId, issued);
    } catch (error) {
      // Nobody will ever hold this key: it must not stay live while the engine runs the execution again.
      await this.partners.revokeApiKey(p.integrationId, issued.id).catch((revokeError: unknown) =>
        this.logger.error({
          msg: 'issued partner key could not be kept nor revoked: revoke it by hand',
          requestId,
          integrationId: p.integrationId,
          keyId: issued.id,
          err: revokeError,
        }),
      );
      throw error;
    }
    return { ...record, collectBy: 'maker' };
  }
}

/** PARTNER_KEY_REVOKE: a key stops working at once (401 INVALID_INTEGRATION_CREDENTIALS). Revoking twice changes nothing. */
@Injectable()
export class PartnerKeyRevokeHandler implements ApprovalHandler<KeyRevokePayload> {
  readonly action = 'PARTNER_KEY_REVOKE' as const;
  readonly makerPermission = 'partners.manage' as const;
  readonly checkerPermission = 'transactions.approve' as const;
  readonly fourEyesMandatory = false;

  constructor(private readonly partners: PartnersClient) {}

  parse(payload: unknown): KeyRevokePayload {
    const b = body(payload);
    const errors: FieldError[] = [];
    onlyFields(b, ['integrationId', 'keyId'], errors);
    const integrationId = uuidField(b, 'integrationId', errors);
    const keyId = uuidField(b, 'keyId', errors);
    if (errors.length > 0) refuse(errors);
    return { integrationId: integrationId!, keyId: keyId! };
  }

  describe(p: KeyRevokePayload) {
    return { target: { type: 'api-key' as const, id: p.keyId }, summary: `Revoke API key ${p.keyId} of integration ${p.integrationId}` };
  }

  dedupKey(p: KeyRevokePayload): string {
    return p.keyId;
  }

  async prepare(p: KeyRevokePayload): Promise<null> {
    const key = await keyOf(this.partners, p.integrationId, p.keyId);
    if (key.status === 'revoked') throw new AppException('CONFLICT', 'The key is already revoked');
    return null;
  }

  async preview(p: KeyRevokePayload) {
    const key = await keyOf(this.partners, p.integrationId, p.keyId);
    return { key, effect: `${key.hint} (${key.mode}) stops working at once: the partner gets 401 with it from then on` };
  }

  async execute(p: KeyRevokePayload) {
    const key = await this.partners.revokeApiKey(p.integrationId, p.keyId);
    return { keyId: key.id, hint: key.hint, mode: key.mode, status: key.status, revokedAt: key.revokedAt };
  }
}
