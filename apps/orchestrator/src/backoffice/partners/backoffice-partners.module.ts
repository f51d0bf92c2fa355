import { Module, type OnModuleInit } from '@nestjs/common';
import { ApprovalRegistry } from '../../approvals/approval-registry';
import { ApprovalsModule } from '../../approvals/approvals.module';
import { GatewayModule } from '../../gateway/gateway.module';
import { PartnersClient } from './partners.client';
import { BackofficeWebhooksModule } from '../webhooks/backoffice-webhooks.module';
import { BackofficePartnersController } from './backoffice-partners.controller';
import { KeyCollectionStore } from './key-collection.store';
import { PartnerKeyIssueHandler, PartnerKeyRevokeHandler } from './partner-key.handlers';
import { PartnerKeysService } from './partner-keys.service';
import { WebhookSecretRotateHandler } from './webhook-secret.handler';

/**
 * Partner integrations for staff (`/api/backoffice/partners`), and the engine's handlers of
 * PARTNER_KEY_ISSUE, PARTNER_KEY_REVOKE and WEBHOOK_SECRET_ROTATE, registered when the module starts.
 */
@Module({
  imports: [GatewayModule, ApprovalsModule, BackofficeWebhooksModule],
  controllers: [BackofficePartnersController],
  providers: [
    PartnersClient,
    KeyCollectionStore,
    PartnerKeyIssueHandler,
    PartnerKeyRevokeHandler,
    WebhookSecretRotateHandler,
    PartnerKeysService,
  ],
  exports: [PartnerKeysService],
})
export class BackofficePartnersModule implements OnModuleInit {
  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly issue: PartnerKeyIssueHandler,
    private readonly revoke: PartnerKeyRevokeHandler,
    private readonly secret: WebhookSecretRotateHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.issue);
    this.registry.register(this.revoke);
    this.registry.register(this.secret);
  }
}
