import { Injectable, Logger } from '@nestjs/common';
import type { AppRole, CustomerRole, StaffRole } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { withArticle } from '@mm/platform';
import { roleName } from '../../access/role-names';
import { AgentsService } from '../agents/agents.service';
import { AuthIdentityClient } from '../../clients/identity-clients';
import type { Customer } from '../customers/customer.types';
import { CustomersService } from '../customers/customers.service';
import { type StaffMember, StaffService } from '../staff/staff.service';

/** Roles change only within a family: a person's records (wallet, agent record) stay meaningful. */
const FAMILIES: ReadonlyArray<readonly AppRole[]> = [
  ['AGENT', 'MASTER_AGENT'],
  ['SUPPORT', 'COMPLIANCE', 'ADMIN', 'AUDITOR'],
];

/**
 * Staff actions on users: freeze / unfreeze a customer and change a role. Each writes auth's side
 * and the orchestrator's side; both calls are idempotent, so a failure between them is repaired by
 * repeating the request.
 */
@Injectable()
export class AdminUsersService {
  private readonly logger = new Logger(AdminUsersService.name);

  constructor(
    private readonly customers: CustomersService,
    private readonly staff: StaffService,
    private readonly agents: AgentsService,
    private readonly auth: AuthIdentityClient,
  ) {}

  /**
   * Frozen: the risk rules refuse every money movement the customer takes part in (ACCOUNT_FROZEN
   * as initiator, COUNTERPARTY_UNAVAILABLE as the other party; read from our own database) and
   * there is no sign-in (auth: the user is DISABLED, every session ends at once).
   *
   * The two sides never disagree on a refusal: in one transaction the customer's row is locked,
   * its status and the status event are written (so their constraints have passed), then auth is
   * called, then the transaction commits. A refusal here (CUSTOMER_CLOSED, a constraint) means auth
   * is never asked; a failed call to auth (the route answers 502) rolls our rows back. Only when
   * auth did its part but its answer was lost is the stricter side left holding: a freeze has
   * already ended the sessions while staff still read `active`; an unfreeze lets the user sign in
   * while the risk rules, which read the status, still refuse the customer's money movements.
   * Repeating the same request completes either (both writes are idempotent).
   */
  freeze(customerId: string, reason: string, actorUserId: string, reasonCode: string | null = null): Promise<Customer> {
    return this.changeStatus(customerId, 'frozen', reason, actorUserId, reasonCode);
  }

  unfreeze(customerId: string, reason: string, actorUserId: string): Promise<Customer> {
    return this.changeStatus(customerId, 'active', reason, actorUserId);
  }

  private async changeStatus(
    customerId: string,
    to: 'frozen' | 'active',
    reason: string,
    actorUserId: string,
    reasonCode: string | null = null,
  ): Promise<Customer> {
    const { customer } = await this.customers.setStatus(customerId, to, reason, actorUserId, reasonCode, (current) =>
      this.auth.setStatus(current.userId, to === 'frozen' ? 'DISABLED' : 'ACTIVE'),
    );
    return customer;
  }

  /**
   * The refusals of a role change, without making it: USER_NOT_FOUND, ROLE_CHANGE_NOT_ALLOWED (own
   * role, another family, a master agent with agents). Answers the role now; `staff` tells whether
   * the change is among staff roles (those go through the maker-checker engine, STAFF_ROLE_CHANGE).
   */
  async planRoleChange(
    userId: string,
    role: AppRole,
    actorUserId: string,
  ): Promise<{ from: AppRole; staff: boolean; customer?: Customer; staffMember?: StaffMember }> {
    if (userId === actorUserId) throw new AppException('ROLE_CHANGE_NOT_ALLOWED', 'Nobody changes their own role');
    const [customer, staff] = await Promise.all([this.customers.findByUserId(userId), this.staff.findByUserId(userId)]);
    const from: AppRole | undefined = customer?.role ?? staff?.role;
    if (!from) throw new AppException('USER_NOT_FOUND');
    const plan = { from, staff: Boolean(staff), customer, staffMember: staff };
    if (from === role) return plan;
    if (!FAMILIES.some((family) => family.includes(from) && family.includes(role))) {
      throw new AppException(
        'ROLE_CHANGE_NOT_ALLOWED',
        `${withArticle(roleName(from), true)} cannot become ${withArticle(roleName(role))}`,
      );
    }
    // A master agent keeps its network until its agents are moved: none is left without oversight.
    const master = customer?.role === 'MASTER_AGENT' ? await this.agents.findByUserId(userId) : undefined;
    if (master && (await this.agents.listAffiliated(master.id, 1)).items.length > 0) {
      throw new AppException('ROLE_CHANGE_NOT_ALLOWED', 'Detach the agents of this master agent first');
    }
    return plan;
  }

  async changeRole(userId: string, role: AppRole, actorUserId: string): Promise<{ userId: string; from: AppRole; role: AppRole }> {
    const { from, customer, staffMember: staff } = await this.planRoleChange(userId, role, actorUserId);
    if (from === role) return { userId, from, role };
    // auth first: it ends the user's sessions, so no token keeps the old role's permissions
    await this.auth.setRoles(userId, [role]);
    if (customer) await this.customers.setRole(customer.id, role as CustomerRole);
    if (staff) await this.staff.setRole(staff.id, role as StaffRole);
    this.logger.log({ msg: 'role changed', userId, from, to: role, actorUserId });
    return { userId, from, role };
  }

  async setMasterAgent(agentId: string, masterAgentCode: string | null) {
    const agent = await this.agents.findById(agentId);
    if (!agent) throw new AppException('AGENT_NOT_FOUND');
    const master = masterAgentCode === null ? null : await this.agents.masterByCode(masterAgentCode);
    return this.agents.setMaster(agent.id, master?.id ?? null);
  }
}
