import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppRole, CustomerStatus } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { isUuid, queryRows } from '@mm/platform';
import type { AuthUser } from '../../access/permissions';
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

/** The columns of a person, from a customer (with merchant or agent record) or a staff record. */
const CUSTOMER_COLUMNS = `c.user_id, c.id AS person_id, c.role, c.phone, p.first_name, p.last_name, m.business_name, a.agent_code,
       c.status, c.kyc_tier, c.id AS customer_id, NULL::uuid AS staff_id, c.wallet_id, m.id AS merchant_id, a.id AS agent_id,
       c.created_at`;
const CUSTOMER_FROM = `orchestrator.customers c
  JOIN orchestrator.profiles p ON p.customer_id = c.id
  LEFT JOIN orchestrator.merchants m ON m.customer_id = c.id
  LEFT JOIN orchestrator.agents a ON a.customer_id = c.id`;
const STAFF_COLUMNS = `s.user_id, s.id AS person_id, s.role, s.phone, s.first_name, s.last_name, NULL AS business_name, NULL AS agent_code,
       NULL AS status, NULL AS kyc_tier, NULL::uuid AS customer_id, s.id AS staff_id, NULL::uuid AS wallet_id, NULL::uuid AS merchant_id,
       NULL::uuid AS agent_id, s.created_at`;

/** How `q` is matched, per kind of record: SQL conditions on `c` (customers) and `s` (staff). */
interface Match {
  customers: string;
  staff: string;
}

/**
 * Everyone with a registration that finished whom the match finds: customers with their merchant
 * or agent record and, when the viewer may see them, staff. `person_id` (the customer or staff
 * record) is the tie-breaker of the keyset. Each branch carries its own condition, so that each
 * is answered from its own indexes (migration 1765500200000).
 */
function people(match: Match, withStaff: boolean): string {
  const customers = `SELECT ${CUSTOMER_COLUMNS} FROM ${CUSTOMER_FROM} WHERE c.registered_at IS NOT NULL AND (${match.customers})`;
  if (!withStaff) return customers;
  return `${customers}
  UNION ALL
  SELECT ${STAFF_COLUMNS} FROM orchestrator.staff s WHERE s.registered_at IS NOT NULL AND (${match.staff})`;
}

/** Staff are people only to those who manage users: customers.read alone (support, auditors) does not show them. */
export function seesStaff(viewer: AuthUser): boolean {
  return viewer.permissions.includes('users.manage');
}

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

  async search(
    q: string,
    limit: number,
    viewer: AuthUser,
    cursor?: string,
  ): Promise<{ items: PersonSummaryView[]; nextCursor: string | null }> {
    const text = q.trim();
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    let match: Match;
    const anId: boolean = isUuid(text); // (a type guard: kept apart so that `text` stays a string below)
    if (anId) {
      const n = bind([text.toLowerCase(), ...(await this.ownerFromLedger(text.toLowerCase()))]);
      // each id column answered by its own index (primary keys, unique keys, customers.wallet_id)
      match = {
        customers: `c.id IN (SELECT id FROM orchestrator.customers WHERE id = ANY(${n}::uuid[]) OR user_id = ANY(${n}::uuid[]) OR wallet_id = ANY(${n}::uuid[])
                     UNION SELECT customer_id FROM orchestrator.merchants WHERE id = ANY(${n}::uuid[])
                     UNION SELECT customer_id FROM orchestrator.agents WHERE id = ANY(${n}::uuid[])
                     UNION SELECT customer_id FROM orchestrator.ledger_accounts WHERE account_id = ANY(${n}::uuid[]))`,
        staff: `s.id = ANY(${n}::uuid[]) OR s.user_id = ANY(${n}::uuid[])`,
      };
    } else if (/^\+?\d+$/.test(text)) {
      const n = bind(`${escapeLike(text.startsWith('+') ? text : `+${text}`)}%`);
      match = { customers: `c.phone LIKE ${n}`, staff: `s.phone LIKE ${n}` };
    } else {
      // a full name's beginning is also its first name's beginning: one index serves both
      const n = bind(`${escapeLike(text)}%`);
      const name = (t: string) =>
        `lower(${t}.first_name || ' ' || ${t}.last_name) LIKE lower(${n}) OR lower(${t}.last_name) LIKE lower(${n})`;
      match = {
        customers: `c.id IN (SELECT p.customer_id FROM orchestrator.profiles p WHERE ${name('p')}
                     UNION SELECT customer_id FROM orchestrator.merchants WHERE lower(business_name) LIKE lower(${n})
                     UNION SELECT customer_id FROM orchestrator.agents WHERE agent_code = upper(${bind(text)}))`,
        staff: name('s'),
      };
    }
    const where: string[] = [];
    if (cursor) {
      const [createdAt, id] = decodeCursor(cursor);
      where.push(`(created_at, person_id) < (${bind(createdAt)}::timestamptz, ${bind(id)}::uuid)`);
    }
    const rows = await queryRows<PersonRow>(
      this.db,
      `SELECT * FROM (${people(match, seesStaff(viewer))}) people ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, person_id DESC LIMIT ${bind(limit + 1)}`,
      params,
    );
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return {
      items: rows.slice(0, limit).map(toSummary),
      nextCursor: last ? encodeCursor([last.created_at.toISOString(), last.person_id]) : null,
    };
  }

  /**
   * One person by user id (the 360 view's key), or PERSON_NOT_FOUND. A staff member is found only
   * for a viewer who may see staff (`seesStaff`); without a viewer (the engine's handlers), always.
   */
  async get(userId: string, viewer?: AuthUser): Promise<PersonSummaryView & { merchantId: string | null; agentId: string | null }> {
    const withStaff = viewer === undefined || seesStaff(viewer);
    const [row] = await queryRows<PersonRow>(
      this.db,
      `SELECT * FROM (${people({ customers: 'c.user_id = $1', staff: 's.user_id = $1' }, withStaff)}) people`,
      [userId],
    );
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
       UNION ALL SELECT 1 FROM orchestrator.customers WHERE id = $1 OR user_id = $1 OR wallet_id = $1
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
