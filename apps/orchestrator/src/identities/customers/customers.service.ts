import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Currency, CustomerStatus } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import type { Customer, CustomerSearch, NewCustomer, ProfilePatch, WalletAccounts } from './customer.types';

type Db = DataSource | EntityManager;

interface CustomerRow {
  id: string;
  user_id: string;
  phone: string;
  role: Customer['role'];
  status: CustomerStatus;
  kyc_tier: string;
  first_name: string;
  last_name: string;
  country_code: string;
  email: string | null;
  wallet_id: string | null;
  created_at: Date;
  accounts: Array<{ account_id: string; currency: Currency; purpose: 'main' | 'commission' }> | null;
}

const SELECT = `
  SELECT c.id, c.user_id, c.phone, c.role, c.status, c.kyc_tier, c.wallet_id, c.created_at,
         p.first_name, p.last_name, p.country_code, p.email,
         (SELECT json_agg(json_build_object('account_id', a.account_id, 'currency', a.currency, 'purpose', a.purpose))
            FROM orchestrator.ledger_accounts a WHERE a.customer_id = c.id) AS accounts
    FROM orchestrator.customers c JOIN orchestrator.profiles p ON p.customer_id = c.id`;

function toCustomer(row: CustomerRow): Customer {
  const accounts: Customer['accounts'] = {};
  const commissionAccounts: Customer['commissionAccounts'] = {};
  for (const a of row.accounts ?? []) (a.purpose === 'main' ? accounts : commissionAccounts)[a.currency] = a.account_id;
  return {
    id: row.id,
    userId: row.user_id,
    phone: row.phone,
    role: row.role,
    status: row.status,
    kycTier: row.kyc_tier,
    firstName: row.first_name,
    lastName: row.last_name,
    countryCode: row.country_code,
    email: row.email,
    walletId: row.wallet_id,
    accounts,
    commissionAccounts,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * The customer module's interface (the customer service of docs/architecture.md "Processes and ports", kept narrow so it could become a
 * service of its own): customers with their profile, status and KYC tier, and the ledger accounts
 * they hold. Money flows ask it who a user is and whether they may move money; the registration
 * workflow creates and (as compensation) removes customers through it.
 */
@Injectable()
export class CustomersService {
  private readonly logger = new Logger(CustomersService.name);

  constructor(private readonly db: DataSource) {}

  async findById(id: string, db: Db = this.db): Promise<Customer | undefined> {
    return this.findOne(db, 'c.id = $1', [id]);
  }

  /** Also a customer whose registration is still running (the workflow's own steps). */
  private async findIncludingPending(id: string, db: Db): Promise<Customer | undefined> {
    const rows = await queryRows<CustomerRow>(db, `${SELECT} WHERE c.id = $1`, [id]);
    return rows[0] && toCustomer(rows[0]);
  }

  async findByUserId(userId: string, db: Db = this.db): Promise<Customer | undefined> {
    return this.findOne(db, 'c.user_id = $1', [userId]);
  }

  /** Several customers by auth user id in one statement (the parties of a payment); the unknown ones are left out. */
  async findByUserIds(userIds: string[], db: Db = this.db): Promise<Customer[]> {
    // Prepared (QueryOptions.prepared): the parties' read of every confirm.
    const rows = await queryRows<CustomerRow>(
      db,
      `${SELECT} WHERE c.user_id = ANY($1::uuid[]) AND c.registered_at IS NOT NULL`,
      [userIds],
      {
        prepared: true,
      },
    );
    return rows.map(toCustomer);
  }

  async findByPhone(phone: string, db: Db = this.db): Promise<Customer | undefined> {
    return this.findOne(db, 'c.phone = $1', [phone]);
  }

  /**
   * The customer of a user id and the customer of a phone in one statement (a payment's initiator
   * and its counterparty); the same customer for both when the phone is the user's own.
   */
  async findByUserIdAndPhone(userId: string, phone: string, db: Db = this.db): Promise<{ byUserId?: Customer; byPhone?: Customer }> {
    // Prepared (QueryOptions.prepared): the parties' read of every create.
    const rows = await queryRows<CustomerRow>(
      db,
      `${SELECT} WHERE (c.user_id = $1 OR c.phone = $2) AND c.registered_at IS NOT NULL`,
      [userId, phone],
      { prepared: true },
    );
    const found = rows.map(toCustomer);
    return { byUserId: found.find((c) => c.userId === userId), byPhone: found.find((c) => c.phone === phone) };
  }

  /** The customer behind an account id of the ledger (who received, who paid). */
  async findByAccountId(accountId: string, db: Db = this.db): Promise<Customer | undefined> {
    return this.findOne(db, 'c.id = (SELECT customer_id FROM orchestrator.ledger_accounts WHERE account_id = $1)', [accountId]);
  }

  async getByUserId(userId: string): Promise<Customer> {
    const customer = await this.findByUserId(userId);
    if (!customer) throw new AppException('CUSTOMER_NOT_FOUND');
    return customer;
  }

  async getById(id: string): Promise<Customer> {
    const customer = await this.findById(id);
    if (!customer) throw new AppException('CUSTOMER_NOT_FOUND');
    return customer;
  }

  /** The ledger account of a customer in a currency (ACCOUNT_NOT_FOUND when it holds none). */
  async accountOf(customerId: string, currency: Currency, purpose: 'main' | 'commission' = 'main'): Promise<string> {
    const rows = await queryRows<{ account_id: string }>(
      this.db,
      `SELECT account_id FROM orchestrator.ledger_accounts WHERE customer_id = $1 AND currency = $2 AND purpose = $3`,
      [customerId, currency, purpose],
    );
    if (!rows[0]) throw new AppException('ACCOUNT_NOT_FOUND', `The customer holds no ${purpose} account in ${currency}`);
    return rows[0].account_id;
  }

  /** Registration step: customer and profile in one transaction. Idempotent on the id. */
  async create(input: NewCustomer, db: Db = this.db): Promise<Customer> {
    const existing = await this.findIncludingPending(input.id, db);
    if (existing) return existing;
    const run = async (m: EntityManager) => {
      await queryRows(m, `INSERT INTO orchestrator.customers (id, user_id, phone, role, registration_id) VALUES ($1, $2, $3, $4, $5)`, [
        input.id,
        input.userId,
        input.phone,
        input.role,
        input.registrationId,
      ]);
      await queryRows(
        m,
        `INSERT INTO orchestrator.profiles (customer_id, first_name, last_name, country_code, email) VALUES ($1, $2, $3, $4, $5)`,
        [input.id, input.firstName, input.lastName, input.countryCode, input.email ?? null],
      );
    };
    try {
      if (db instanceof DataSource) await db.transaction(run);
      else await run(db);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new AppException('USER_ALREADY_EXISTS');
      throw error;
    }
    return (await this.findIncludingPending(input.id, db))!;
  }

  /** The registration's last step: from now on the customer is found, listed and can be paid. */
  async setRegistered(customerId: string, registered: boolean, db: Db = this.db): Promise<void> {
    await queryRows(db, `UPDATE orchestrator.customers SET registered_at = CASE WHEN $2 THEN now() END, updated_at = now() WHERE id = $1`, [
      customerId,
      registered,
    ]);
  }

  /** Registration step: the wallet the ledger created and its accounts. Idempotent. */
  async attachWallet(customerId: string, wallet: WalletAccounts, db: Db = this.db): Promise<void> {
    await queryRows(db, `UPDATE orchestrator.customers SET wallet_id = $2, updated_at = now() WHERE id = $1`, [
      customerId,
      wallet.walletId,
    ]);
    for (const a of wallet.accounts) {
      await queryRows(
        db,
        `INSERT INTO orchestrator.ledger_accounts (account_id, wallet_id, customer_id, currency, purpose) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`,
        [a.accountId, wallet.walletId, customerId, a.currency, a.purpose],
      );
    }
  }

  /** Compensation of the wallet step: the customer forgets the wallet (the ledger closes it). */
  async detachWallet(customerId: string, db: Db = this.db): Promise<void> {
    await queryRows(db, `DELETE FROM orchestrator.ledger_accounts WHERE customer_id = $1`, [customerId]);
    await queryRows(db, `UPDATE orchestrator.customers SET wallet_id = NULL, updated_at = now() WHERE id = $1`, [customerId]);
  }

  /** Compensation: the customer, its profile and everything hanging off it. Gone already: fine. */
  async remove(customerId: string, db: Db = this.db): Promise<boolean> {
    const rows = await queryRows(db, `DELETE FROM orchestrator.customers WHERE id = $1 RETURNING id`, [customerId]);
    return rows.length > 0;
  }

  async updateProfile(customerId: string, patch: ProfilePatch): Promise<Customer> {
    await queryRows(
      this.db,
      `UPDATE orchestrator.profiles SET
         first_name = COALESCE($2, first_name),
         last_name = COALESCE($3, last_name),
         email = CASE WHEN $5 THEN $4 ELSE email END,
         updated_at = now()
       WHERE customer_id = $1`,
      [customerId, patch.firstName ?? null, patch.lastName ?? null, patch.email ?? null, patch.email !== undefined],
    );
    return this.getById(customerId);
  }

  /**
   * Status change with its audit row, in one transaction; answers the status before the change and
   * the customer as it stands after, from the row it locked (no read after the transaction).
   * A closed customer stays closed. `beforeCommit` runs inside the transaction once the rows are
   * written and before they are committed (the call to auth of a freeze): if it throws, nothing
   * of the change is kept here either.
   */
  async setStatus(
    customerId: string,
    to: CustomerStatus,
    reason: string,
    actorUserId: string,
    reasonCode: string | null = null,
    beforeCommit?: (customer: Customer) => Promise<unknown>,
  ): Promise<{ from: CustomerStatus; customer: Customer }> {
    const result = await this.db.transaction(async (m) => {
      const [row] = await queryRows<CustomerRow>(m, `${SELECT} WHERE c.id = $1 AND c.registered_at IS NOT NULL FOR UPDATE OF c`, [
        customerId,
      ]);
      if (!row) throw new AppException('CUSTOMER_NOT_FOUND');
      const from = row.status;
      if (from === 'closed' && to !== 'closed') throw new AppException('CUSTOMER_CLOSED');
      if (from !== to) {
        await queryRows(m, `UPDATE orchestrator.customers SET status = $2, updated_at = now() WHERE id = $1`, [customerId, to]);
        await queryRows(
          m,
          `INSERT INTO orchestrator.customer_status_events (customer_id, from_status, to_status, reason, actor_user_id, reason_code)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [customerId, from, to, reason, actorUserId, reasonCode],
        );
      }
      // Our own rows are written (their constraints have passed) before the other side is asked;
      // its refusal rolls them back. Also on a repeat (from === to): it repairs the other side.
      await beforeCommit?.(toCustomer(row));
      return { from, customer: from === to ? toCustomer(row) : { ...toCustomer(row), status: to } };
    });
    if (result.from !== to) this.logger.log({ msg: 'customer status changed', customerId, from: result.from, to, actorUserId });
    return result;
  }

  /** The status change that brought the customer to its current status (who, why, when), if any was recorded. */
  async lastStatusChange(
    customerId: string,
  ): Promise<{ toStatus: CustomerStatus; reason: string; reasonCode: string | null; actorUserId: string; at: string } | undefined> {
    const [row] = await queryRows<{
      to_status: CustomerStatus;
      reason: string;
      reason_code: string | null;
      actor_user_id: string;
      at: Date;
    }>(
      this.db,
      `SELECT to_status, reason, reason_code, actor_user_id, at FROM orchestrator.customer_status_events
        WHERE customer_id = $1 ORDER BY id DESC LIMIT 1`,
      [customerId],
    );
    return (
      row && {
        toStatus: row.to_status,
        reason: row.reason,
        reasonCode: row.reason_code,
        actorUserId: row.actor_user_id,
        at: row.at.toISOString(),
      }
    );
  }

  async setRole(customerId: string, role: Customer['role'], db: Db = this.db): Promise<void> {
    await queryRows(db, `UPDATE orchestrator.customers SET role = $2, updated_at = now() WHERE id = $1`, [customerId, role]);
  }

  /** Staff search, newest first, keyset-paginated (`nextCursor` until the last page). */
  async search(query: CustomerSearch): Promise<{ items: Customer[]; nextCursor: string | null }> {
    const where: string[] = ['c.registered_at IS NOT NULL'];
    const params: unknown[] = [];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (query.phone) add((n) => `c.phone = ${n}`, query.phone);
    if (query.q) {
      const like = `${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      add((n) => `(c.phone LIKE ${n} OR p.first_name ILIKE ${n} OR p.last_name ILIKE ${n})`, like);
    }
    if (query.status) add((n) => `c.status = ${n}`, query.status);
    if (query.role) add((n) => `c.role = ${n}`, query.role);
    if (query.cursor) {
      const [createdAt, id] = decodeCursor(query.cursor);
      params.push(createdAt, id);
      where.push(`(c.created_at, c.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(query.limit + 1);
    const rows = await queryRows<CustomerRow>(
      this.db,
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
      params,
    );
    const items = rows.slice(0, query.limit).map(toCustomer);
    const last = rows.length > query.limit ? rows[query.limit - 1] : undefined;
    return { items, nextCursor: last ? encodeCursor([last.created_at.toISOString(), last.id]) : null };
  }

  /** Customers whose registration has not finished do not exist for the rest of the platform. */
  private async findOne(db: Db, condition: string, params: unknown[]): Promise<Customer | undefined> {
    const rows = await queryRows<CustomerRow>(db, `${SELECT} WHERE ${condition} AND c.registered_at IS NOT NULL`, params);
    return rows[0] && toCustomer(rows[0]);
  }
}
