import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Currency } from '@mm/contracts';
import { queryRows } from '@mm/platform';
import { LedgerWalletsClient } from '../../clients/identity-clients';
import { AgentsService } from './agents.service';

export interface Organisation {
  organisationId: string;
  name: string;
  walletId: string;
  accounts: Partial<Record<Currency, string>>;
  masterAgentId: string;
}

/**
 * A master agent's organisation and its corporate wallet: a master agent runs an organisation, whose
 * wallet is an `ORGANISATION` wallet of the ledger (docs/ledger.md "Wallets and accounts"). Two
 * services are involved, so it is done in the order that can be undone: the ledger wallet first
 * (idempotent per owner), then, in one transaction, the organisation, its accounts and the master
 * agent's link; if that transaction fails, the unused wallet is closed again.
 */
@Injectable()
export class OrganisationsService {
  private readonly logger = new Logger(OrganisationsService.name);

  constructor(
    private readonly db: DataSource,
    private readonly ledger: LedgerWalletsClient,
    private readonly agents: AgentsService,
  ) {}

  async create(name: string, masterAgentCode: string): Promise<Organisation> {
    const master = await this.agents.masterByCode(masterAgentCode);
    const id = randomUUID();
    const wallet = await this.ledger.createWallet('ORGANISATION', id, name);
    const accounts: Partial<Record<Currency, string>> = {};
    for (const a of wallet.accounts) accounts[a.currency] = a.id;
    try {
      await this.db.transaction(async (m) => {
        await queryRows(m, `INSERT INTO orchestrator.organisations (id, name, wallet_id) VALUES ($1, $2, $3)`, [id, name, wallet.id]);
        for (const [currency, accountId] of Object.entries(accounts)) {
          await queryRows(
            m,
            `INSERT INTO orchestrator.ledger_accounts (account_id, wallet_id, organisation_id, currency, purpose) VALUES ($1, $2, $3, $4, 'main')`,
            [accountId, wallet.id, id, currency],
          );
        }
        await queryRows(m, `UPDATE orchestrator.agents SET organisation_id = $2 WHERE id = $1`, [master.id, id]);
      });
    } catch (error) {
      await this.ledger
        .closeWallet('ORGANISATION', id)
        .catch((closeError: unknown) =>
          this.logger.error({ msg: 'organisation wallet left open after a failed creation', walletId: wallet.id, err: closeError }),
        );
      throw error;
    }
    this.logger.log({ msg: 'organisation created', organisationId: id, masterAgentId: master.id });
    return { organisationId: id, name, walletId: wallet.id, accounts, masterAgentId: master.id };
  }
}
