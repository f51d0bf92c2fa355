import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import type { TransactionCompletedEvent } from '@mm/contracts';
import { newPhone } from '../../../test/support/phones';

export type Kind = 'CUSTOMER' | 'MERCHANT' | 'AGENT';

/** A registered person as the orchestrator's identities hold them, with one XAF account. */
export interface Person {
  userId: string;
  customerId: string;
  account: string;
  kind: Kind;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * Persons written straight into the orchestrator's identity tables (what a finished registration
 * leaves): the monitoring feed resolves accounts to persons from there. One statement per call.
 */
export async function createPersons(sql: Client, count: number, kind: Kind, registeredDaysAgo = 1): Promise<Person[]> {
  const people = Array.from({ length: count }, () => ({
    userId: randomUUID(),
    customerId: randomUUID(),
    account: randomUUID(),
    wallet: randomUUID(),
    phone: newPhone(),
    kind,
  }));
  const role = kind === 'AGENT' ? 'AGENT' : kind;
  const col = <T>(pick: (p: (typeof people)[number]) => T) => people.map(pick);
  await sql.query(
    `WITH c AS (
       INSERT INTO orchestrator.customers (id, user_id, phone, role, wallet_id, registration_id, registered_at, created_at)
       SELECT id, user_id, phone, $5, wallet, gen_random_uuid(), now() - make_interval(days => $6), now() - make_interval(days => $6)
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[]) AS t(id, user_id, phone, wallet)
       RETURNING id, wallet_id),
     p AS (INSERT INTO orchestrator.profiles (customer_id, first_name, last_name, country_code)
           SELECT id, 'Test', 'Person', 'CM' FROM c)
     INSERT INTO orchestrator.ledger_accounts (account_id, wallet_id, customer_id, currency, purpose)
     SELECT a.account, c.wallet_id, c.id, 'XAF', 'main' FROM c JOIN unnest($1::uuid[], $7::uuid[]) AS a(id, account) ON a.id = c.id`,
    [
      col((p) => p.customerId),
      col((p) => p.userId),
      col((p) => p.phone),
      col((p) => p.wallet),
      role,
      registeredDaysAgo,
      col((p) => p.account),
    ],
  );
  return people.map((p) => ({ userId: p.userId, customerId: p.customerId, account: p.account, kind }));
}

/** A `transaction.completed` event as the ledger's relay publishes it. */
export function completed(
  type: 'TRANSFER' | 'CASH_IN' | 'CASH_OUT',
  from: { account: string },
  to: { account: string },
  amount: number,
  at: number,
): TransactionCompletedEvent {
  return {
    eventId: randomUUID(),
    type: 'transaction.completed',
    occurredAt: new Date(at).toISOString(),
    transactionId: randomUUID(),
    referenceId: `MMPTX${randomUUID().replace(/-/g, '').slice(0, 13).toUpperCase()}`,
    intentId: randomUUID(),
    intentType: type,
    amount,
    fee: 0,
    commission: 0,
    currency: 'XAF',
    sourceAccountId: from.account,
    destinationAccountId: to.account,
    qrToken: null,
    createdBy: randomUUID(),
    typeCode: type,
    agentId: null,
    correlationId: null,
  };
}

/** A small seeded generator (mulberry32): the same "normal day" every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
