import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler } from '../../approvals/approval-handler';
import { AuthIdentityClient } from '../../clients/identity-clients';
import { StaffService } from '../../identities/staff/staff.service';
import { REASON_RULE, USER_ID_RULE, readPayload } from '../../approvals/approval-payload';
import { PeopleSearchService } from './people-search.service';
import { PeopleUpstreams } from './people-upstreams.client';

export interface StaffAccessPayload {
  userId: string;
  reason: string;
}

type Status = 'ACTIVE' | 'DISABLED';

/**
 * STAFF_DISABLE and STAFF_ENABLE: a staff member's access ends (auth marks the user disabled and
 * ends every session at once, as it does for a frozen customer: login then answers
 * ACCOUNT_DISABLED and a token still held is refused by the guard), or is given back. Four eyes,
 * administrators on both sides (`users.manage`); nobody asks for or decides their own, and the
 * person concerned is never the checker. The state is auth's (the user's status), read again when
 * the request is asked for and set when it is carried out, which is idempotent.
 */
@Injectable()
abstract class StaffAccessHandler implements ApprovalHandler<StaffAccessPayload> {
  abstract readonly action: 'STAFF_DISABLE' | 'STAFF_ENABLE';
  readonly makerPermission = 'users.manage' as const;
  readonly checkerPermission = 'users.manage' as const;
  readonly fourEyesMandatory = false;
  /** the status the action sets */
  protected abstract readonly to: Status;
  protected abstract readonly verb: string;

  constructor(
    private readonly staff: StaffService,
    private readonly people: PeopleSearchService,
    private readonly upstreams: PeopleUpstreams,
    private readonly auth: AuthIdentityClient,
  ) {}

  parse(payload: unknown): StaffAccessPayload {
    const { userId, reason } = readPayload(payload, { userId: USER_ID_RULE, reason: REASON_RULE });
    return { userId: userId.toLowerCase(), reason };
  }

  describe(payload: StaffAccessPayload) {
    return { target: { type: 'user' as const, id: payload.userId }, summary: `${this.verb} staff user ${payload.userId}` };
  }

  /** One live request of this action per person. */
  dedupKey(payload: StaffAccessPayload): string {
    return payload.userId;
  }

  async prepare(payload: StaffAccessPayload, maker: AuthUser): Promise<null> {
    this.notOwn(payload, maker);
    await this.staffMember(payload.userId);
    const { status } = await this.upstreams.security(payload.userId);
    if (status === this.to) throw new AppException(this.to === 'DISABLED' ? 'STAFF_ALREADY_DISABLED' : 'STAFF_NOT_DISABLED');
    return null;
  }

  async preview(payload: StaffAccessPayload) {
    const staff = await this.staffMember(payload.userId);
    return {
      person: { userId: staff.userId, role: staff.role, phone: staff.phone, name: `${staff.firstName} ${staff.lastName}` },
      effect:
        this.to === 'DISABLED'
          ? 'The staff member can no longer sign in: every session ends at once and every request they make is refused (ACCOUNT_DISABLED)'
          : 'The staff member may sign in again, with their PIN and second factor',
    };
  }

  /** The person concerned never decides: refused up front, the request stays pending for another checker. */
  refuseChecker(payload: StaffAccessPayload, _prepared: unknown, checker: AuthUser): AppException | null {
    return payload.userId === checker.userId
      ? new AppException('APPROVAL_CHECKER_CONCERNED', 'Nobody decides about their own access')
      : null;
  }

  async execute(payload: StaffAccessPayload, _prepared: unknown, checker: AuthUser) {
    this.notOwn(payload, checker);
    await this.staffMember(payload.userId);
    const user = await this.auth.setStatus(payload.userId, this.to);
    return { userId: payload.userId, status: user.status };
  }

  private notOwn(payload: StaffAccessPayload, user: AuthUser): void {
    if (payload.userId === user.userId) throw new AppException('OWN_ACCOUNT_ACTION', 'Nobody asks for or decides about their own access');
  }

  /** The staff member, else PERSON_NOT_STAFF (a customer, merchant or agent: they are frozen) or PERSON_NOT_FOUND. */
  private async staffMember(userId: string) {
    const staff = await this.staff.findByUserId(userId);
    if (staff) return staff;
    await this.people.get(userId);
    throw new AppException('PERSON_NOT_STAFF');
  }
}

@Injectable()
export class StaffDisableHandler extends StaffAccessHandler {
  readonly action = 'STAFF_DISABLE' as const;
  protected readonly to = 'DISABLED' as const;
  protected readonly verb = 'Disable';
}

@Injectable()
export class StaffEnableHandler extends StaffAccessHandler {
  readonly action = 'STAFF_ENABLE' as const;
  protected readonly to = 'ACTIVE' as const;
  protected readonly verb = 'Enable again';
}
