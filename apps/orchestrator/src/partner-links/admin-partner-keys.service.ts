import { Injectable, Logger } from '@nestjs/common';
import type { ApiKeyView, CreateIntegrationRequest, IssuedApiKey, PartnerMode, RotatedWebhookSecret } from '@mm/contracts';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import type { ApprovalRequestView } from '../approvals/approval.views';
import { PartnerKeysService } from '../backoffice/partners/partner-keys.service';
import type { AdminCreatedIntegrationView } from './dto/admin-integration.views';
import { PartnersClient } from '../backoffice/partners/partners.client';

/** What a key route did: asked (a second person decides), or carried out at once. */
export type KeyOutcome<T> = { asked: ApprovalRequestView } | { done: T };

/**
 * The administration routes' partner keys and webhook secrets, on the one maker-checker engine
 * (PARTNER_KEY_ISSUE, PARTNER_KEY_REVOKE, WEBHOOK_SECRET_ROTATE) exactly as the back office's: an administrator asks, a compliance officer or
 * another administrator approves, the maker collects an issued key once. When configuration lets an
 * action run on one pair of eyes, the request is carried out at once and the answer is the one these
 * routes always gave (the key itself, or the revoked key).
 */
@Injectable()
export class AdminPartnerKeysService {
  private readonly logger = new Logger(AdminPartnerKeysService.name);

  constructor(
    private readonly partners: PartnersClient,
    private readonly keys: PartnerKeysService,
  ) {}

  /**
   * Creates the integration with its test key and webhook secrets, and asks for its first live key.
   * Partners mints a live key with every integration; that key never leaves the orchestrator: it is
   * revoked before this answers, and the live key the partner gets is the one a second person approves.
   */
  async createIntegration(
    user: AuthUser,
    body: Omit<CreateIntegrationRequest, 'createdBy'>,
    reason: string | undefined,
  ): Promise<AdminCreatedIntegrationView> {
    const created = await this.partners.createIntegration({ ...body, createdBy: user.userId });
    const integrationId = created.integration.id;
    try {
      await this.partners.revokeApiKey(integrationId, created.apiKeys.live.id);
    } catch (error) {
      // A live key nobody approved must not stay usable: without its revocation the integration goes.
      await this.partners
        .revokeIntegration(integrationId, user.userId)
        .catch((undone: unknown) => this.logger.error({ msg: 'integration left with an unapproved live key', integrationId, err: undone }));
      throw error;
    }

    // The integration, its test key and its secrets exist and are shown once: a live key request that
    // cannot be recorded must not lose them. It is logged, answered null, and can be asked again.
    let liveKeyRequest: ApprovalRequestView | null = null;
    let live: IssuedApiKey | null = null;
    try {
      liveKeyRequest = await this.keys.requestKey(
        user,
        { integrationId, mode: 'live' },
        reason ?? `First live key of the new integration ${created.integration.name}`.slice(0, 500),
      );
      if (liveKeyRequest.status === 'EXECUTED') live = await this.keys.collect(user, liveKeyRequest.id);
    } catch (error) {
      this.logger.error({ msg: 'first live key request of a new integration not recorded', integrationId, err: error });
    }
    return {
      integration: created.integration,
      apiKeys: { test: created.apiKeys.test, live },
      webhookSecrets: created.webhookSecrets,
      liveKeyRequest,
    };
  }

  /** One more key of a mode: the request while it waits, or the key when carried out at once. */
  async issue(user: AuthUser, integrationId: string, mode: PartnerMode, reason: string | undefined): Promise<KeyOutcome<IssuedApiKey>> {
    const request = await this.keys.requestKey(user, { integrationId, mode }, reason ?? `Another ${mode} API key`);
    return this.keyOrRequest(user, request);
  }

  /** The replacement of a key (of the same mode); the old one keeps working for the overlap. */
  async rotate(
    user: AuthUser,
    integrationId: string,
    keyId: string,
    overlapSeconds: number | undefined,
    reason: string | undefined,
  ): Promise<KeyOutcome<IssuedApiKey>> {
    const key = await this.keyOf(integrationId, keyId);
    const request = await this.keys.requestKey(
      user,
      { integrationId, mode: key.mode, replacesKeyId: keyId, ...(overlapSeconds !== undefined ? { overlapSeconds } : {}) },
      reason ?? `Rotation of ${key.mode} API key ${key.hint}`,
    );
    return this.keyOrRequest(user, request);
  }

  /** The revocation: the request while it waits, or the revoked key. A key already revoked is answered as it is. */
  async revoke(user: AuthUser, integrationId: string, keyId: string, reason: string | undefined): Promise<KeyOutcome<ApiKeyView>> {
    const key = await this.keyOf(integrationId, keyId);
    if (key.status === 'revoked') return { done: key };
    const request = await this.keys.requestRevocation(user, integrationId, keyId, reason ?? `Revocation of API key ${key.hint}`);
    return request.status === 'PENDING' ? { asked: request } : { done: await this.keyOf(integrationId, keyId) };
  }

  /**
   * A new webhook signing secret (WEBHOOK_SECRET_ROTATE): the request while it waits, or the secret
   * when configuration lets one person rotate it (carried out at once, collected by the maker).
   */
  async rotateWebhookSecret(
    user: AuthUser,
    integrationId: string,
    mode: PartnerMode,
    reason: string | undefined,
  ): Promise<KeyOutcome<RotatedWebhookSecret>> {
    const request = await this.keys.requestSecretRotation(
      user,
      integrationId,
      mode,
      reason ?? `Rotation of the ${mode} webhook signing secret`,
    );
    return request.status === 'PENDING' ? { asked: request } : { done: await this.keys.collectSecret(user, request.id) };
  }

  /** One pair of eyes: the request was carried out in the maker's name, who collects the key at once. */
  private async keyOrRequest(user: AuthUser, request: ApprovalRequestView): Promise<KeyOutcome<IssuedApiKey>> {
    return request.status === 'PENDING' ? { asked: request } : { done: await this.keys.collect(user, request.id) };
  }

  private async keyOf(integrationId: string, keyId: string): Promise<ApiKeyView> {
    const key = (await this.partners.apiKeys(integrationId)).find((k) => k.id === keyId);
    if (!key) throw new AppException('API_KEY_NOT_FOUND');
    return key;
  }
}
