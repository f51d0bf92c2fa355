import { BenchClient } from '../ledger/http-client';
import { must } from './admin-config';

export interface FundedCustomer {
  phone: string;
  token: string;
  /** the customer's XAF account */
  account: string;
}

/**
 * `count` customers registered and signed in through the gateway, each XAF account funded with
 * `amount` through the ledger's operator route: the payers and payees of the public-flow benches.
 * Phones are `+2376<firstPhone + i>`, so two benches on one database pick different ranges.
 */
export async function registerFundedCustomers(
  gateway: BenchClient,
  ledgerOps: BenchClient,
  options: { count: number; firstPhone: number; pin: string; amount?: number },
): Promise<FundedCustomer[]> {
  const customers: FundedCustomer[] = [];
  for (let i = 0; i < options.count; i++) {
    const phone = `+2376${String(options.firstPhone + i)}`;
    const reg = must(
      await gateway.call('POST', '/api/orchestrator/auth/register', {
        phone,
        pin: options.pin,
        firstName: `Bench${i}`,
        lastName: 'User',
        countryCode: 'CM',
      }),
      201,
      'register',
    );
    const token = must(await gateway.call('POST', '/api/auth/login', { phone, pin: options.pin }), 200, 'login').body.token as string;
    const account = (reg.body.accounts as Record<string, string>).XAF;
    must(
      await ledgerOps.call('PUT', `/v1/accounts/${account}/balance/add`, {
        amount: options.amount ?? 150_000,
        reason: 'bench funding',
        createdBy: 'bench',
      }),
      200,
      'fund',
    );
    customers.push({ phone, token, account });
  }
  return customers;
}
