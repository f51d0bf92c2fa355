import { Injectable } from '@nestjs/common';
import { APP_ROLES, type AppRole } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { AdminUsersService } from '../../identities/admin/admin-users.service';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler } from '../../approvals/approval-handler';
import { USER_ID_RULE, readPayload } from '../../approvals/approval-payload';

export interface RoleChangePayload {
  userId: string;
  role: AppRole;
}

const ROLE_RULE = {
  test: (v: string) => (APP_ROLES as readonly string[]).includes(v),
  code: 'INVALID_ROLE',
  message: `must be one of ${APP_ROLES.join(', ')}`,
};

/** Nobody asks for or decides a change of their own role (ROLE_CHANGE_NOT_ALLOWED, as the direct route always answered). */
function notOwn(payload: RoleChangePayload, user: AuthUser): void {
  if (payload.userId === user.userId)
    throw new AppException('ROLE_CHANGE_NOT_ALLOWED', 'Nobody asks for or decides a change of their own role');
}

/**
 * STAFF_ROLE_CHANGE: a staff member's role changes among SUPPORT, COMPLIANCE, ADMIN and AUDITOR
 * (what `PUT /api/orchestrator/admin/users/:userId/role` asks for staff). The change's refusals are
 * checked when it is asked for and again when it is carried out, as the checker, who may not be the
 * person whose role changes. Auth ends that person's sessions: the next sign-in carries the new role.
 */
@Injectable()
export class StaffRoleChangeHandler implements ApprovalHandler<RoleChangePayload> {
  readonly action = 'STAFF_ROLE_CHANGE' as const;
  readonly makerPermission = 'users.manage' as const;
  readonly checkerPermission = 'users.manage' as const;
  readonly fourEyesMandatory = false;

  constructor(private readonly users: AdminUsersService) {}

  parse(payload: unknown): RoleChangePayload {
    const { userId, role } = readPayload(payload, { userId: USER_ID_RULE, role: ROLE_RULE });
    return { userId: userId.toLowerCase(), role: role as AppRole };
  }

  describe(payload: RoleChangePayload) {
    return {
      target: { type: 'user' as const, id: payload.userId },
      summary: `Change the role of user ${payload.userId} to ${payload.role}`,
    };
  }

  /** One live role change per person. */
  dedupKey(payload: RoleChangePayload): string {
    return payload.userId;
  }

  async prepare(payload: RoleChangePayload, maker: AuthUser): Promise<{ from: AppRole }> {
    notOwn(payload, maker);
    const { from } = await this.users.planRoleChange(payload.userId, payload.role, maker.userId);
    return { from };
  }

  async preview(payload: RoleChangePayload, prepared: unknown) {
    return {
      userId: payload.userId,
      from: (prepared as { from?: AppRole } | null)?.from ?? null,
      to: payload.role,
      effect: "The person's sessions end; the next sign-in carries the new role and its permissions",
    };
  }

  /** The person concerned never decides: refused up front, the request stays pending for another checker. */
  refuseChecker(payload: RoleChangePayload, _prepared: unknown, checker: AuthUser): AppException | null {
    return payload.userId === checker.userId
      ? new AppException('APPROVAL_CHECKER_CONCERNED', 'Nobody decides a change of their own role')
      : null;
  }

  async execute(payload: RoleChangePayload, _prepared: unknown, checker: AuthUser) {
    notOwn(payload, checker);
    return this.users.changeRole(payload.userId, payload.role, checker.userId);
  }
}
