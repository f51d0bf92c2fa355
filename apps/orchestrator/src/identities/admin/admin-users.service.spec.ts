import { AppException } from '@mm/errors';
import type { AgentsService } from '../agents/agents.service';
import type { AuthIdentityClient } from '../../clients/identity-clients';
import type { Customer } from '../customers/customer.types';
import type { CustomersService } from '../customers/customers.service';
import type { StaffService } from '../staff/staff.service';
import { AdminUsersService } from './admin-users.service';

/** Freeze and unfreeze, with the customer service and auth stubbed (freeze-auth-failure.test.ts covers the wire). */
describe('AdminUsersService: freeze and unfreeze', () => {
  const customer = { id: 'c-1', userId: 'u-1', status: 'active' } as Customer;

  /** A stand-in of setStatus: its rows written, then the hook (auth) inside the "transaction", then committed. */
  function service(status: Customer['status'] = 'active') {
    const calls: string[] = [];
    const customers = {
      setStatus: async (
        id: string,
        to: Customer['status'],
        reason: string,
        actor: string,
        _code: string | null,
        beforeCommit: (c: Customer) => Promise<unknown>,
      ) => {
        if (status === 'closed') throw new AppException('CUSTOMER_CLOSED');
        calls.push(`write ${id} ${to} ${reason} ${actor}`);
        await beforeCommit({ ...customer, status });
        calls.push('commit');
        return { from: status, customer: { ...customer, status: to } };
      },
    } as unknown as CustomersService;
    const auth = {
      setStatus: async (userId: string, to: string) => void calls.push(`auth ${userId} ${to}`),
    } as unknown as AuthIdentityClient;
    const users = new AdminUsersService(customers, {} as StaffService, {} as AgentsService, auth);
    return { users, calls };
  }

  it('freeze: writes the status and its event, disables the user in auth, then commits and answers the customer', async () => {
    const { users, calls } = service();
    expect(await users.freeze('c-1', 'fraud report', 'admin-1')).toEqual({ ...customer, status: 'frozen' });
    expect(calls).toEqual(['write c-1 frozen fraud report admin-1', 'auth u-1 DISABLED', 'commit']);
  });

  it('unfreeze: the same steps towards ACTIVE', async () => {
    const { users, calls } = service('frozen');
    expect(await users.unfreeze('c-1', 'cleared', 'admin-1')).toEqual({ ...customer, status: 'active' });
    expect(calls).toEqual(['write c-1 active cleared admin-1', 'auth u-1 ACTIVE', 'commit']);
  });

  it('a closed customer: CUSTOMER_CLOSED before auth is asked', async () => {
    for (const change of ['freeze', 'unfreeze'] as const) {
      const { users, calls } = service('closed');
      await expect(users[change]('c-1', 'r', 'admin-1')).rejects.toMatchObject({ code: 'CUSTOMER_CLOSED' });
      expect(calls).toEqual([]);
    }
  });
});

/** Role changes that leave the role's family, with the stores and auth stubbed (roles-staff.test.ts covers the wire). */
describe('AdminUsersService: changeRole refusals', () => {
  it.each([
    ['ADMIN', 'AGENT', 'An administrator cannot become an agent'],
    ['CUSTOMER', 'ADMIN', 'A customer cannot become an administrator'],
    ['MASTER_AGENT', 'COMPLIANCE', 'A master agent cannot become a compliance officer'],
  ])('%s to %s: ROLE_CHANGE_NOT_ALLOWED, "%s"', async (from, to, message) => {
    const isStaff = ['SUPPORT', 'COMPLIANCE', 'ADMIN'].includes(from);
    const customers = { findByUserId: async () => (isStaff ? null : { id: 'c-1', role: from }) } as unknown as CustomersService;
    const staff = { findByUserId: async () => (isStaff ? { id: 's-1', role: from } : null) } as unknown as StaffService;
    const users = new AdminUsersService(customers, staff, {} as AgentsService, {} as AuthIdentityClient);
    const refused = await users.changeRole('u-1', to as never, 'admin-1').catch((error: AppException) => error);
    expect(refused).toBeInstanceOf(AppException);
    expect([(refused as AppException).code, (refused as AppException).message]).toEqual(['ROLE_CHANGE_NOT_ALLOWED', message]);
  });
});
