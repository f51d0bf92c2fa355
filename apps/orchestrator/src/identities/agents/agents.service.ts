import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { decodeCursor, encodeCursor } from '../../common/cursor';
import { CustomersService } from '../customers/customers.service';
import type { Customer } from '../customers/customer.types';

type Db = DataSource | EntityManager;

export interface Agent {
  id: string;
  customerId: string;
  agentCode: string;
  masterAgentId: string | null;
  organisationId: string | null;
  createdAt: string;
  /** the person behind it: phone, status, role (AGENT or MASTER_AGENT), wallet and accounts */
  customer: Customer;
}

interface AgentRow {
  id: string;
  customer_id: string;
  agent_code: string;
  master_agent_id: string | null;
  organisation_id: string | null;
  created_at: Date;
}

const COLUMNS = 'id, customer_id, agent_code, master_agent_id, organisation_id, created_at';

/** A new agent code: `AG` and 8 digits (what an agent tells a customer at the counter). */
export function newAgentCode(): string {
  return `AG${randomInt(0, 100_000_000).toString().padStart(8, '0')}`;
}

/** Agents and master agents: float and commission accounts in the agent's wallet, an optional master agent. */
@Injectable()
export class AgentsService {
  constructor(
    private readonly db: DataSource,
    private readonly customers: CustomersService,
  ) {}

  /** Registration step (idempotent on the id). */
  async create(
    input: { id: string; customerId: string; agentCode: string; masterAgentId?: string | null },
    db: Db = this.db,
  ): Promise<void> {
    await queryRows(
      db,
      `INSERT INTO orchestrator.agents (id, customer_id, agent_code, master_agent_id) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
      [input.id, input.customerId, input.agentCode, input.masterAgentId ?? null],
    );
  }

  /** Compensation: affiliated agents (none can exist before the registration ends) keep no link. */
  async remove(id: string, db: Db = this.db): Promise<void> {
    await queryRows(db, `DELETE FROM orchestrator.agents WHERE id = $1`, [id]);
  }

  async findByUserId(userId: string): Promise<Agent | undefined> {
    return this.findOne('customer_id = (SELECT id FROM orchestrator.customers WHERE user_id = $1)', [userId]);
  }

  async findById(id: string): Promise<Agent | undefined> {
    return this.findOne('id = $1', [id]);
  }

  async findByCode(agentCode: string): Promise<Agent | undefined> {
    return this.findOne('agent_code = $1', [agentCode]);
  }

  async getByUserId(userId: string): Promise<Agent> {
    const agent = await this.findByUserId(userId);
    if (!agent) throw new AppException('AGENT_NOT_FOUND');
    return agent;
  }

  /** A master agent named by its code, for an affiliation (404 AGENT_NOT_FOUND, 422 NOT_A_MASTER_AGENT). */
  async masterByCode(agentCode: string): Promise<Agent> {
    const master = await this.findByCode(agentCode);
    if (!master) throw new AppException('AGENT_NOT_FOUND', `No agent with code ${agentCode}`);
    if (master.customer.role !== 'MASTER_AGENT') throw new AppException('NOT_A_MASTER_AGENT');
    return master;
  }

  async setMaster(agentId: string, masterAgentId: string | null): Promise<Agent> {
    if (masterAgentId === agentId) throw new AppException('NOT_A_MASTER_AGENT', 'An agent cannot be its own master agent');
    const rows = await queryRows(this.db, `UPDATE orchestrator.agents SET master_agent_id = $2 WHERE id = $1 RETURNING id`, [
      agentId,
      masterAgentId,
    ]);
    if (rows.length === 0) throw new AppException('AGENT_NOT_FOUND');
    return (await this.findById(agentId))!;
  }

  /** The agents affiliated to a master agent, oldest first, keyset-paginated. */
  async listAffiliated(masterAgentId: string, limit: number, cursor?: string): Promise<{ items: Agent[]; nextCursor: string | null }> {
    const params: unknown[] = [masterAgentId];
    let after = '';
    if (cursor) {
      const [createdAt, id] = decodeCursor(cursor);
      params.push(createdAt, id);
      after = `AND (a.created_at, a.id) > ($2::timestamptz, $3::uuid)`;
    }
    params.push(limit + 1);
    const rows = await queryRows<AgentRow>(
      this.db,
      `SELECT ${COLUMNS.split(', ')
        .map((c) => `a.${c}`)
        .join(', ')} FROM orchestrator.agents a JOIN orchestrator.customers c ON c.id = a.customer_id
        WHERE a.master_agent_id = $1 AND c.registered_at IS NOT NULL ${after}
        ORDER BY a.created_at, a.id LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const items = (await Promise.all(page.map((r) => this.hydrate(r)))).filter((a): a is Agent => a !== undefined);
    const last = rows.length > limit ? page[page.length - 1] : undefined;
    return { items, nextCursor: last ? encodeCursor([last.created_at.toISOString(), last.id]) : null };
  }

  private async findOne(condition: string, params: unknown[]): Promise<Agent | undefined> {
    const rows = await queryRows<AgentRow>(this.db, `SELECT ${COLUMNS} FROM orchestrator.agents WHERE ${condition}`, params);
    return rows[0] && this.hydrate(rows[0]);
  }

  private async hydrate(row: AgentRow): Promise<Agent | undefined> {
    const customer = await this.customers.findById(row.customer_id);
    if (!customer) return undefined;
    return {
      id: row.id,
      customerId: row.customer_id,
      agentCode: row.agent_code,
      masterAgentId: row.master_agent_id,
      organisationId: row.organisation_id,
      createdAt: row.created_at.toISOString(),
      customer,
    };
  }
}
