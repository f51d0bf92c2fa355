import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { AdminUsersService } from '../../identities/admin/admin-users.service';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalRequestView } from '../../approvals/approval.views';
import { ApprovalsService } from '../../approvals/approvals.service';
import type { FreezePersonDto } from './people.dto';
import { PeopleSearchService } from './people-search.service';
import { PeopleUpstreams } from './people-upstreams.client';
import type { PersonSummaryView, SessionsRevokedView } from './person.views';

/**
 * What staff do to a person from the back office. Freezing and ending sessions are protective and
 * immediate; unfreezing, resetting a staff member's second factor and disabling or enabling a
 * staff member are asked of the maker-checker engine (CUSTOMER_UNFREEZE, STAFF_TOTP_RESET,
 * STAFF_DISABLE, STAFF_ENABLE), which carries them out once another
 * staff member approves (or at once when configuration makes the action a one-person one).
 */
@Injectable()
export class PersonActionsService {
  constructor(
    private readonly people: PeopleSearchService,
    private readonly users: AdminUsersService,
    private readonly upstreams: PeopleUpstreams,
    private readonly approvals: ApprovalsService,
  ) {}

  async freeze(userId: string, body: FreezePersonDto, actor: AuthUser): Promise<PersonSummaryView> {
    const person = await this.people.get(userId);
    if (!person.customerId) throw new AppException('PERSON_NOT_FREEZABLE');
    await this.users.freeze(person.customerId, body.note ?? body.reasonCode, actor.userId, body.reasonCode);
    const { merchantId: _m, agentId: _a, ...summary } = await this.people.get(userId);
    return summary;
  }

  async requestUnfreeze(userId: string, reason: string, maker: AuthUser): Promise<ApprovalRequestView> {
    const person = await this.people.get(userId);
    if (!person.customerId) throw new AppException('PERSON_NOT_FREEZABLE');
    return this.approvals.submit(maker, { action: 'CUSTOMER_UNFREEZE', payload: { userId, reason }, reason });
  }

  /** A staff member's sessions are ended only by those who may see staff (users.manage); to others they are not found. */
  async revokeSessions(userId: string, reason: string, actor: AuthUser): Promise<SessionsRevokedView> {
    await this.people.get(userId, actor);
    const { revoked } = await this.upstreams.revokeSessions(userId, reason);
    return { userId, revoked };
  }

  async requestSecondFactorReset(userId: string, reason: string, maker: AuthUser): Promise<ApprovalRequestView> {
    const person = await this.people.get(userId);
    if (person.kind !== 'STAFF') throw new AppException('SECOND_FACTOR_STAFF_ONLY');
    return this.approvals.submit(maker, { action: 'STAFF_TOTP_RESET', payload: { userId, reason }, reason });
  }

  /** STAFF_DISABLE or STAFF_ENABLE, for a staff member (PERSON_NOT_STAFF otherwise: customers are frozen). */
  async requestStaffAccess(
    userId: string,
    action: 'STAFF_DISABLE' | 'STAFF_ENABLE',
    reason: string,
    maker: AuthUser,
  ): Promise<ApprovalRequestView> {
    const person = await this.people.get(userId, maker);
    if (person.kind !== 'STAFF') throw new AppException('PERSON_NOT_STAFF');
    return this.approvals.submit(maker, { action, payload: { userId, reason }, reason });
  }
}
