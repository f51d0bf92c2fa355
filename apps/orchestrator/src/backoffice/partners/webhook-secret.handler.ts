import { Injectable } from '@nestjs/common';
import { PARTNER_MODES, type PartnerMode } from '@mm/contracts';
import { AppException, type FieldError } from '@mm/errors';
import { isUuid } from '@mm/platform';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler } from '../../approvals/approval-handler';
import { PartnersClient } from './partners.client';
import { KeyCollectionStore } from './key-collection.store';

export interface WebhookSecretRotatePayload {
  integrationId: string;
  mode: PartnerMode;
}

/**
 * WEBHOOK_SECRET_ROTATE: a new signing secret for the live or test webhooks of an integration.
 * Whoever holds it can sign an `order.paid` the partner will believe, so one person never both
 * decides the rotation and receives the secret: an administrator asks (`partners.manage`), a
 * compliance officer or another administrator approves (`transactions.approve`), and the execution
 * keeps the secret encrypted for the maker, who collects it once
 * (POST /api/backoffice/partners/secret-requests/{id}/collect). The request's result shows the mode
 * and when the previous secret stops signing, never the secret. Executing again after a crash
 * answers the rotation already made.
 */
@Injectable()
export class WebhookSecretRotateHandler implements ApprovalHandler<WebhookSecretRotatePayload> {
  readonly action = 'WEBHOOK_SECRET_ROTATE' as const;
  readonly makerPermission = 'partners.manage' as const;
  readonly checkerPermission = 'transactions.approve' as const;
  readonly fourEyesMandatory = false;

  constructor(
    private readonly partners: PartnersClient,
    private readonly collection: KeyCollectionStore,
  ) {}

  parse(payload: unknown): WebhookSecretRotatePayload {
    const b = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
    const errors: FieldError[] = [];
    for (const field of Object.keys(b)) {
      if (field !== 'integrationId' && field !== 'mode')
        errors.push({ field: `payload.${field}`, code: 'UNKNOWN_FIELD', message: 'is not allowed' });
    }
    if (b.integrationId === undefined) errors.push({ field: 'payload.integrationId', code: 'REQUIRED', message: 'is required' });
    else if (typeof b.integrationId !== 'string' || !isUuid(b.integrationId))
      errors.push({ field: 'payload.integrationId', code: 'INVALID_UUID', message: 'must be a UUID' });
    if (b.mode === undefined) errors.push({ field: 'payload.mode', code: 'REQUIRED', message: 'is required' });
    else if (!(PARTNER_MODES as readonly unknown[]).includes(b.mode))
      errors.push({ field: 'payload.mode', code: 'INVALID_MODE', message: 'must be live or test' });
    if (errors.length > 0) {
      throw new AppException('VALIDATION_ERROR', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
    }
    return { integrationId: (b.integrationId as string).toLowerCase(), mode: b.mode as PartnerMode };
  }

  describe(p: WebhookSecretRotatePayload) {
    return {
      target: { type: 'integration' as const, id: p.integrationId },
      summary: `Rotate the ${p.mode} webhook signing secret of integration ${p.integrationId}`,
    };
  }

  /** One live request per integration and mode. */
  dedupKey(p: WebhookSecretRotatePayload): string {
    return `${p.integrationId}:${p.mode}`;
  }

  async prepare(p: WebhookSecretRotatePayload): Promise<null> {
    const integration = await this.partners.integration(p.integrationId);
    if (integration.status !== 'active') throw new AppException('CONFLICT', 'The integration is revoked: its webhooks are not rotated');
    return null;
  }

  async preview(p: WebhookSecretRotatePayload) {
    const integration = await this.partners.integration(p.integrationId);
    return {
      integration: { id: integration.id, name: integration.name, status: integration.status },
      mode: p.mode,
      effect:
        `A new ${p.mode} signing secret for ${integration.name}; the current one keeps signing alongside it for the overlap, ` +
        'so the partner can deploy the new one. The maker collects the new secret once.',
    };
  }

  async execute(p: WebhookSecretRotatePayload, _prepared: unknown, _checker: AuthUser, requestId: string) {
    const already = await this.collection.recordedSecret(requestId);
    if (already) return { ...already, collectBy: 'maker' };
    const rotated = await this.partners.rotateWebhookSecret(p.integrationId, p.mode);
    const record = await this.collection.keepSecret(requestId, rotated);
    return { ...record, collectBy: 'maker' };
  }
}
