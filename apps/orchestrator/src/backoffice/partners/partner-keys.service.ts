import { Injectable } from '@nestjs/common';
import type { IssuedApiKey, PartnerMode, RotatedWebhookSecret } from '@mm/contracts';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalRequestView } from '../../approvals/approval.views';
import { ApprovalsService } from '../../approvals/approvals.service';
import { KeyCollectionStore } from './key-collection.store';
import type { KeyIssuePayload } from './partner-key.handlers';

/**
 * Partner credentials on four eyes: asking for a new or replacement API key, for a revocation, for
 * a new webhook signing secret, and collecting an approved key or secret (its maker alone, once).
 */
@Injectable()
export class PartnerKeysService {
  constructor(
    private readonly approvals: ApprovalsService,
    private readonly collection: KeyCollectionStore,
  ) {}

  requestKey(user: AuthUser, payload: KeyIssuePayload, reason: string): Promise<ApprovalRequestView> {
    return this.approvals.submit(user, { action: 'PARTNER_KEY_ISSUE', payload, reason });
  }

  requestRevocation(user: AuthUser, integrationId: string, keyId: string, reason: string): Promise<ApprovalRequestView> {
    return this.approvals.submit(user, { action: 'PARTNER_KEY_REVOKE', payload: { integrationId, keyId }, reason });
  }

  /**
   * The key an approved PARTNER_KEY_ISSUE created, to its maker, once. Anyone else is refused, and
   * so is a request that is not executed, already collected or kept past COLLECT_TTL_SECONDS.
   */
  async collect(user: AuthUser, approvalId: string): Promise<IssuedApiKey> {
    const request = await this.approvals.view(approvalId);
    if (request.action !== 'PARTNER_KEY_ISSUE') throw new AppException('APPROVAL_NOT_FOUND', `No key request ${approvalId}`);
    if (request.maker.userId !== user.userId) throw new AppException('PARTNER_KEY_COLLECTOR_NOT_MAKER');
    if (request.status !== 'EXECUTED') throw new AppException('PARTNER_KEY_NOT_COLLECTABLE', `The request is ${request.status}`);
    const key = await this.collection.collect(approvalId);
    if (!key) throw new AppException('PARTNER_KEY_NOT_COLLECTABLE');
    return key;
  }

  requestSecretRotation(user: AuthUser, integrationId: string, mode: PartnerMode, reason: string): Promise<ApprovalRequestView> {
    return this.approvals.submit(user, { action: 'WEBHOOK_SECRET_ROTATE', payload: { integrationId, mode }, reason });
  }

  /** The secret an approved WEBHOOK_SECRET_ROTATE made, to its maker, once (as `collect` for keys). */
  async collectSecret(user: AuthUser, approvalId: string): Promise<RotatedWebhookSecret> {
    const request = await this.approvals.view(approvalId);
    if (request.action !== 'WEBHOOK_SECRET_ROTATE') throw new AppException('APPROVAL_NOT_FOUND', `No webhook secret request ${approvalId}`);
    if (request.maker.userId !== user.userId) throw new AppException('PARTNER_KEY_COLLECTOR_NOT_MAKER');
    if (request.status !== 'EXECUTED') throw new AppException('WEBHOOK_SECRET_NOT_COLLECTABLE', `The request is ${request.status}`);
    const secret = await this.collection.collectSecret(approvalId);
    if (!secret) throw new AppException('WEBHOOK_SECRET_NOT_COLLECTABLE');
    return secret;
  }
}
