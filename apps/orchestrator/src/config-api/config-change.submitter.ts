import { Injectable, applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AuthUser } from '../access/permissions';
import { ApprovalRequestView } from '../approvals/approval.views';
import { ApprovalsService } from '../approvals/approvals.service';
import { ApiErrors } from '../common/api-errors';
import type { ConfigSection, ConfigVersion } from './config-sections';
import { ConfigVersionsService } from './config-versions.service';
import type { ConfigChangeDto } from './dto/config-change.dto';
import { ConfigVersionView } from './dto/config-views';

export const THROUGH_APPROVAL =
  ' The change goes through the maker-checker engine (CONFIG_CHANGE): 202 with the pending request, which another holder of config.manage approves; 201 with the new version when APPROVALS_ONE_PERSON_ACTIONS lists CONFIG_CHANGE.';

/** What every configuration write answers: 201 the new version in force, or 202 the pending CONFIG_CHANGE request. */
export function ApiConfigChangeAnswers(): MethodDecorator {
  return applyDecorators(
    ApiCreatedResponse({ type: ConfigVersionView, description: 'the new version, in force (CONFIG_CHANGE configured one-person)' }),
    ApiAcceptedResponse({
      type: ApprovalRequestView,
      description: 'the change waits for a second administrator (GET /api/backoffice/approvals/{id})',
    }),
    ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_CONFLICT', 'APPROVAL_DUPLICATE_PENDING'),
  );
}

/**
 * What every section's change route does with a validated body: submit it as a CONFIG_CHANGE
 * request, and answer 202 with the pending request or 201 with the version it appended.
 */
@Injectable()
export class ConfigChangeSubmitter {
  constructor(
    private readonly versions: ConfigVersionsService,
    private readonly approvals: ApprovalsService,
  ) {}

  async submit<S extends ConfigSection>(
    section: S,
    body: ConfigChangeDto & { document: unknown },
    user: AuthUser,
    reply: FastifyReply,
  ): Promise<ConfigVersion<S> | ApprovalRequestView> {
    const request = await this.approvals.submit(user, {
      action: 'CONFIG_CHANGE',
      payload: { section, baseVersion: body.baseVersion, reason: body.reason, document: body.document },
      reason: body.reason,
    });
    if (request.status === 'PENDING') {
      reply.status(202);
      return request;
    }
    reply.status(201);
    return this.versions.get(section, Number(request.result?.version));
  }
}
