import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler } from '../../approvals/approval-handler';
import { StaffService } from '../../identities/staff/staff.service';
import { PeopleUpstreams } from './people-upstreams.client';
import { REASON_RULE, USER_ID_RULE, readPayload } from '../../approvals/approval-payload';

export interface TotpResetPayload {
  userId: string;
  reason: string;
}

function notOwn(payload: TotpResetPayload, user: AuthUser): void {
  if (payload.userId === user.userId)
    throw new AppException('OWN_ACCOUNT_ACTION', 'Nobody asks for or decides the reset of their own second factor');
}

/**
 * STAFF_TOTP_RESET: a staff member's second factor is removed (a lost phone): auth ends their
 * sessions and they enrol again at their next sign-in. Only for staff; nobody resets their own.
 */
@Injectable()
export class StaffTotpResetHandler implements ApprovalHandler<TotpResetPayload> {
  readonly action = 'STAFF_TOTP_RESET' as const;
  readonly makerPermission = 'users.manage' as const;
  readonly checkerPermission = 'users.manage' as const;
  readonly fourEyesMandatory = false;

  constructor(
    private readonly staff: StaffService,
    private readonly upstreams: PeopleUpstreams,
  ) {}

  parse(payload: unknown): TotpResetPayload {
    const { userId, reason } = readPayload(payload, { userId: USER_ID_RULE, reason: REASON_RULE });
    return { userId: userId.toLowerCase(), reason };
  }

  describe(payload: TotpResetPayload) {
    return { target: { type: 'user' as const, id: payload.userId }, summary: `Reset the second factor of staff user ${payload.userId}` };
  }

  dedupKey(payload: TotpResetPayload): string {
    return payload.userId;
  }

  async prepare(payload: TotpResetPayload, maker: AuthUser): Promise<null> {
    notOwn(payload, maker);
    await this.staffMember(payload.userId);
    return null;
  }

  async preview(payload: TotpResetPayload) {
    const staff = await this.staffMember(payload.userId);
    return {
      person: { userId: staff.userId, role: staff.role, phone: staff.phone, name: `${staff.firstName} ${staff.lastName}` },
      effect: 'The second factor is removed and every session ends; the person enrols a new one at the next sign-in',
    };
  }

  /** The person concerned never decides: refused up front, the request stays pending for another checker. */
  refuseChecker(payload: TotpResetPayload, _prepared: unknown, checker: AuthUser): AppException | null {
    return payload.userId === checker.userId
      ? new AppException('APPROVAL_CHECKER_CONCERNED', 'Nobody decides the reset of their own second factor')
      : null;
  }

  async execute(payload: TotpResetPayload, _prepared: unknown, checker: AuthUser) {
    notOwn(payload, checker);
    await this.staffMember(payload.userId);
    return this.upstreams.resetSecondFactor(payload.userId);
  }

  private async staffMember(userId: string) {
    const staff = await this.staff.findByUserId(userId);
    if (!staff) throw new AppException('SECOND_FACTOR_STAFF_ONLY');
    return staff;
  }
}
