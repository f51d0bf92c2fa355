import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RegulatoryPartyView } from '@mm/contracts';
import { queryRows } from '@mm/platform';
import type { ReportParty } from './report-content';
import type { SubjectIdentity } from './suspicion-report.builder';

interface IdentityRow {
  account_id: string;
  purpose: string | null;
  role: string | null;
  phone: string | null;
  kyc_tier: string | null;
  first_name: string | null;
  last_name: string | null;
  business_name: string | null;
  agent_code: string | null;
  organisation: string | null;
}

const TECHNICAL = new Set(['agent_commission', 'fee_collection', 'treasury', 'suspense', 'black']);

/**
 * Who is behind a ledger account, from the orchestrator's own records (customers and their
 * profiles, merchants, agents, organisations): the name (a merchant's business name), phone, role,
 * KYC tier and agent code. The platform keeps no identity document number, so a report has none.
 * An account the orchestrator does not know (a technical account) is named as the ledger names it.
 */
@Injectable()
export class PartyIdentities {
  constructor(private readonly db: DataSource) {}

  /** A lookup of every account of `parties`, falling back on what the ledger says of the account. */
  async resolver(
    parties: Pick<RegulatoryPartyView, 'accountId' | 'accountType' | 'holder'>[],
    more: string[] = [],
  ): Promise<(accountId: string) => ReportParty> {
    const ledger = new Map(parties.map((p) => [p.accountId, p]));
    const rows = await this.rows([...new Set([...ledger.keys(), ...more])]);
    const known = new Map(rows.map((r) => [r.account_id, r]));
    return (accountId: string): ReportParty => {
      const row = known.get(accountId);
      const fallback = ledger.get(accountId);
      const accountType = fallback?.accountType ?? (row ? accountTypeOf(row) : 'unknown');
      if (!row) {
        return {
          accountId,
          accountType,
          role: TECHNICAL.has(accountType) ? 'PLATFORM' : 'UNKNOWN',
          name: fallback?.holder ?? accountId,
          phone: null,
          kycTier: null,
          agentCode: null,
        };
      }
      return {
        accountId,
        accountType,
        role: row.role ?? 'ORGANISATION',
        name: nameOf(row) ?? fallback?.holder ?? accountId,
        phone: row.phone,
        kycTier: row.kyc_tier,
        agentCode: row.agent_code,
      };
    };
  }

  /** The person behind a user id (a case's subject), or null when the orchestrator has no such customer. */
  async subject(userId: string): Promise<SubjectIdentity | null> {
    const [row] = await queryRows<IdentityRow>(
      this.db,
      `SELECT NULL::uuid AS account_id, NULL AS purpose, c.role, c.phone, c.kyc_tier, p.first_name, p.last_name, m.business_name, a.agent_code, NULL AS organisation
         FROM orchestrator.customers c
         LEFT JOIN orchestrator.profiles p ON p.customer_id = c.id
         LEFT JOIN orchestrator.merchants m ON m.customer_id = c.id
         LEFT JOIN orchestrator.agents a ON a.customer_id = c.id
        WHERE c.user_id = $1::uuid`,
      [userId],
    );
    if (!row) return null;
    const person = row.first_name && row.last_name ? `${row.first_name} ${row.last_name}` : null;
    return {
      role: row.role,
      kycTier: row.kyc_tier,
      agentCode: row.agent_code,
      businessName: row.business_name,
      name: person,
      phone: row.phone,
    };
  }

  private rows(accountIds: string[]): Promise<IdentityRow[]> {
    if (accountIds.length === 0) return Promise.resolve([]);
    return queryRows<IdentityRow>(
      this.db,
      `SELECT la.account_id, la.purpose, c.role, c.phone, c.kyc_tier, p.first_name, p.last_name, m.business_name, a.agent_code, o.name AS organisation
         FROM orchestrator.ledger_accounts la
         LEFT JOIN orchestrator.customers c ON c.id = la.customer_id
         LEFT JOIN orchestrator.profiles p ON p.customer_id = c.id
         LEFT JOIN orchestrator.merchants m ON m.customer_id = c.id
         LEFT JOIN orchestrator.agents a ON a.customer_id = c.id
         LEFT JOIN orchestrator.organisations o ON o.id = la.organisation_id
        WHERE la.account_id = ANY($1::uuid[])`,
      [accountIds],
    );
  }
}

function nameOf(row: IdentityRow): string | null {
  if (row.organisation) return row.organisation;
  if (row.business_name && row.role === 'MERCHANT') return row.business_name;
  if (row.first_name && row.last_name) return `${row.first_name} ${row.last_name}`;
  return null;
}

/** The ledger account type an account of the orchestrator's records has (used when the ledger did not say). */
function accountTypeOf(row: IdentityRow): string {
  if (row.purpose === 'commission') return 'agent_commission';
  if (row.organisation) return 'organisation';
  if (row.role === 'AGENT' || row.role === 'MASTER_AGENT') return 'agent';
  if (row.role === 'MERCHANT') return 'merchant';
  return 'customer';
}
