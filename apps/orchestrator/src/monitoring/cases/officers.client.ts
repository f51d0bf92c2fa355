import { Inject, Injectable } from '@nestjs/common';
import { AUTH_INTERNAL_ROUTES, type UserSecurityView } from '@mm/contracts';
import { AppException } from '@mm/errors';
import type { InternalHttpClient } from '@mm/platform';
import { UPSTREAMS, type Upstreams } from '../../gateway/upstreams';
import { permissionsOf } from '../../access/role-matrix';

/**
 * Whether a user may be given a case: auth holds every staff member's roles and status (staff
 * created outside the orchestrator's registration included), so it is asked, with the
 * orchestrator's own key. The role must carry `compliance.monitoring`; a disabled user is refused.
 */
@Injectable()
export class OfficersClient {
  private readonly auth: InternalHttpClient;

  constructor(@Inject(UPSTREAMS) upstreams: Upstreams) {
    this.auth = upstreams.auth;
  }

  async assertOfficer(userId: string): Promise<void> {
    let user: UserSecurityView;
    try {
      user = await this.auth.get<UserSecurityView>(`${AUTH_INTERNAL_ROUTES.users}/${userId}/security`);
    } catch (error) {
      if (error instanceof AppException && error.status === 404) throw notOfficer(userId);
      throw error;
    }
    if (user.status !== 'ACTIVE' || !permissionsOf(user.roles).includes('compliance.monitoring')) throw notOfficer(userId);
  }
}

function notOfficer(userId: string): AppException {
  return new AppException('CASE_ASSIGNEE_NOT_OFFICER', `User ${userId} is not an active compliance officer or administrator`);
}
