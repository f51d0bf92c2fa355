import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppRole, CustomerStatus } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { isUuid, queryRows } from '@mm/platform';
import { PeopleUpstreams } from './people-upstreams.client';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import type { PersonKind, PersonSummaryView } from './person.views';

interface PersonRow {
  user_id: string;
  person_id: string;
  role: AppRole;
  phone: string;
  first_name: string;
  last_name: string;
  business_name: string | null;
  agent_code: string | null;
  status: CustomerStatus | null;
  kyc_tier: string | null;
  customer_id: string | null;
  staff_id: string | null;
  wallet_id: string | null;
  merchant_id: string | null;
  agent_id: string | null;
  created_at: Date;
}

/**
 * Everyone with a registration that finished: customers with their merchant or agent record, and
 * staff. `person_id` (the customer or staff record) is the tie-breaker of the keyset.
 */
const PEOPLE = `
  SELECT c.user_id, c.id AS person_id, c.role, c.phone, p.first_name, p.last_name, m.business_name, a.agent_code,
         c.status, c.kyc_tier, c.id AS customer_id, NULL::uuid AS staff_id, c.wallet_id, m.id AS merchant_id, a.id AS agent_id,
         c.created_at
    FROM orchestrator.customers c
    JOIN orchestrator.profiles p ON p.customer_id = c.id
    LEFT JOIN orchestrator.merchants m ON m.customer_id = c.id
    LEFT JOIN orchestrator.agents a ON a.customer_id = c.id
   WHERE c.registered_at IS NOT NULL
  UNION ALL
  SELECT s.user_id, s.id, s.role, s.phone, s.first_name, s.last_name, NULL, NULL,
         NULL, NULL, NULL, s.id, NULL, NULL, NULL,
         s.created_at
    FROM orchestrator.staff s
   WHERE s.registered_at IS NOT NULL`;

export function kindOf(role: AppRole): PersonKind {
  switch (role) {
    case 'CUSTOMER':
      return 'CUSTOMER';
    case 'MERCHANT':
      return 'MERCHANT';
    case 'AGENT':
    case 'MASTER_AGENT':
      return 'AGENT';
    default:
      return 'STAFF';
  }
}

function toSummary(row: PersonRow): PersonSummaryView {
  return {
    userId: row.user_id,
    kind: kindOf(row.role),
    role: row.role,
    phone: row.phone,
    firstName: row.first_name,
    lastName: row.last_name,
    businessName: row.business_name,
    agentCode: row.agent_code,
    status: row.status,
    kycTier: row.kyc_tier,
    customerId: row.customer_id,
    staffId: row.staff_id,
    walletId: row.wallet_id,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * The back office's one search box. What `q` is decides how it is matched:
 * - a UUID: any id that names a person — user, customer, staff, merchant or agent record, wallet, or
 *   ledger account. An account or wallet the orchestrator does not know is looked up at the ledger,
 *   whose wallet names its owner;
 * - `+` or digits: the phone number, exact or by prefix;
 * - anything else: a prefix of a first name, last name, full name or business name, or an agent code.
 */
@Injectable()
export class PeopleSearchService {
  constructor(
    private readonly db: DataSource,
    private readonly ledger: PeopleUpstreams,
  ) {}

  async search(q: string, limit: number, cursor?: string): Promise<{ items: PersonSummaryView[]; nextCursor: string | null }> {
    const text = q.trim();
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    let match: string;
    const anId: boolean = isUuid(text);
    if (anId) {
      const ids = [text.toLowerCase(), ...(await this.ownerFromLedger(text.toLowerCase()))];
      const n = bind(ids);
      match = `(user_id = ANY(${n}::uuid[]) OR person_id = ANY(${n}::uuid[]) OR wallet_id = ANY(${n}::uuid[])
              OR merchant_id = ANY(${n}::uuid[]) OR agent_id = ANY(${n}::uuid[])
              OR customer_id IN (SELECT customer_id FROM orchestrator.ledger_accounts WHERE account_id = ANY(${n}::uuid[])))`;
    } else if (/^\+?\d+$/.test(text)) {
      match = `phone LIKE ${bind(`${escapeLike(text.startsWith('+') ? text : `+${text}`)}%`)}`;
    } else {
      const n = bind(`${escapeLike(text)}%`);
      match = `(first_name ILIKE ${n} OR last_name ILIKE ${n} OR (first_name || ' ' || last_name) ILIKE ${n}
              OR business_name ILIKE ${n} OR agent_code = upper(${bind(text)}))`;
    }
    const where = [match];
    if (cursor) {
      const [createdAt, id] = decodeCursor(cursor);
      where.push(`(created_at, person_id) < (${bind(createdAt)}::timestamptz, ${bind(id)}::uuid)`);
    }
    const rows = await queryRows<PersonRow>(
      this.db,
      `SELECT * FROM (${PEOPLE}) people WHERE ${where.join(' AND ')} ORDER BY created_at DESC, person_id DESC LIMIT ${bind(limit + 1)}`,
      params,
    );
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return {
      items: rows.slice(0, limit).map(toSummary),
      nextCursor: last ? encodeCursor([last.created_at.toISOString(), last.person_id]) : null,
    };
  }

  /** One person by user id (the 360 view's key), or PERSON_NOT_FOUND. */
  async get(userId: string): Promise<PersonSummaryView & { merchantId: string | null; agentId: string | null }> {
    const [row] = await queryRows<PersonRow>(this.db, `SELECT * FROM (${PEOPLE}) people WHERE user_id = $1`, [userId]);
    if (!row) throw new AppException('PERSON_NOT_FOUND');
    return { ...toSummary(row), merchantId: row.merchant_id, agentId: row.agent_id };
  }

  /**
   * When `id` is a ledger account or wallet, the id of its owner's record (customer, merchant or
   * agent), so that an id the orchestrator does not hold itself still finds the person. A
   * registration's wallet is owned by the customer (USER), merchant or agent record. Nothing when
   * the ledger knows no such account or wallet; a ledger that cannot be reached is the route's 502.
   */
  private async ownerFromLedger(id: string): Promise<string[]> {
    const known = await queryRows<{ one: number }>(
      this.db,
      `SELECT 1 AS one FROM orchestrator.ledger_accounts WHERE account_id = $1 OR wallet_id = $1
       UNION ALL SELECT 1 FROM orchestrator.customers WHERE id = $1 OR user_id = $1
       UNION ALL SELECT 1 FROM orchestrator.staff WHERE id = $1 OR user_id = $1
       UNION ALL SELECT 1 FROM orchestrator.merchants WHERE id = $1
       UNION ALL SELECT 1 FROM orchestrator.agents WHERE id = $1 LIMIT 1`,
      [id],
    );
    if (known.length > 0) return [];
    const walletId = await this.ledger.account(id).then(
      (account) => account.walletId,
      (error: unknown) => (isNotFound(error) ? id : Promise.reject(error)),
    );
    const wallet = await this.ledger.wallet(walletId).catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
    return wallet && isUuid(wallet.ownerId) ? [wallet.ownerId.toLowerCase()] : [];
  }
}

const isNotFound = (error: unknown): boolean => {
  const code = (error as { code?: string }).code;
  return code === 'ACCOUNT_NOT_FOUND' || code === 'WALLET_NOT_FOUND' || code === 'VALIDATION_ERROR';
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
