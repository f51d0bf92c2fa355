import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { AdminUsersService } from '../../identities/admin/admin-users.service';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler } from '../../approvals/approval-handler';
import { CustomersService } from '../../identities/customers/customers.service';
import { REASON_RULE, USER_ID_RULE, readPayload } from '../../approvals/approval-payload';

export interface UnfreezePayload {
  /** the person (user id) */
  userId: string;
  /** why, recorded with the status change (the maker's words) */
  reason: string;
}

/** The status event's reason: the maker's words and the request that carried them (the column holds 500 characters). */
const eventReason = (reason: string, requestId: string) => {
  const suffix = ` (approval ${requestId})`;
  return reason.slice(0, 500 - suffix.length) + suffix;
};

/**
 * CUSTOMER_UNFREEZE: a frozen customer, merchant or agent may sign in and move money again. Freezing
 * is protective and immediate (one person); lifting it is four eyes by default. The unfreeze is
 * carried out as the checker (the status event names them) and is idempotent: executing it again
 * for the same request finds the person active and changes nothing.
 */
@Injectable()
export class CustomerUnfreezeHandler implements ApprovalHandler<UnfreezePayload> {
  readonly action = 'CUSTOMER_UNFREEZE' as const;
  readonly makerPermission = 'customers.freeze' as const;
  readonly checkerPermission = 'customers.freeze' as const;
  readonly fourEyesMandatory = false;

  constructor(
    private readonly customers: CustomersService,
    private readonly users: AdminUsersService,
  ) {}

  parse(payload: unknown): UnfreezePayload {
    const { userId, reason } = readPayload(payload, { userId: USER_ID_RULE, reason: REASON_RULE });
    return { userId: userId.toLowerCase(), reason };
  }

  describe(payload: UnfreezePayload) {
    return { target: { type: 'customer' as const, id: payload.userId }, summary: `Unfreeze the account of user ${payload.userId}` };
  }

  /** One live unfreeze per person, whatever its reason. */
  dedupKey(payload: UnfreezePayload): string {
    return payload.userId;
  }

  async prepare(payload: UnfreezePayload): Promise<null> {
    const customer = await this.customers.findByUserId(payload.userId);
    if (!customer) throw new AppException('PERSON_NOT_FOUND');
    if (customer.status === 'closed') throw new AppException('CUSTOMER_CLOSED');
    if (customer.status !== 'frozen') throw new AppException('PERSON_NOT_FROZEN');
    return null;
  }

  async preview(payload: UnfreezePayload) {
    const customer = await this.customers.findByUserId(payload.userId);
    if (!customer) throw new AppException('PERSON_NOT_FOUND');
    const change = customer.status === 'frozen' ? await this.customers.lastStatusChange(customer.id) : undefined;
    return {
      person: {
        userId: customer.userId,
        customerId: customer.id,
        role: customer.role,
        phone: customer.phone,
        name: `${customer.firstName} ${customer.lastName}`,
        status: customer.status,
      },
      frozen:
        change?.toStatus === 'frozen'
          ? { reasonCode: change.reasonCode, note: change.reason, by: change.actorUserId, at: change.at }
          : null,
      effect: 'The person may sign in again and take part in money movements',
    };
  }

  async execute(payload: UnfreezePayload, _prepared: unknown, checker: AuthUser, requestId: string) {
    const customer = await this.customers.findByUserId(payload.userId);
    if (!customer) throw new AppException('PERSON_NOT_FOUND');
    const after = await this.users.unfreeze(customer.id, eventReason(payload.reason, requestId), checker.userId);
    return { userId: after.userId, customerId: after.id, status: after.status };
  }
}
