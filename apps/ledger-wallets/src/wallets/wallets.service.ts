import { Injectable } from '@nestjs/common';
import { type LedgerWalletView, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { iso } from '../db/money';
import { LedgerDb } from '../db/ledger-db.service';
import { ACCOUNT_COLUMNS, type AccountRow, type AccountView, toAccountView } from './account-view';
import type { CreateWalletDto, WalletOwnerType } from './dto/create-wallet.dto';

/** The contract's wallet view (the orchestrator reads the same shape). */
export type WalletView = LedgerWalletView;

/** Main account type per owner; agents also get a commission account per currency. */
const ACCOUNT_TYPES: Record<WalletOwnerType, string[]> = {
  USER: ['customer'],
  AGENT: ['agent', 'agent_commission'],
  MERCHANT: ['merchant'],
  ORGANISATION: ['organisation'],
};

@Injectable()
export class WalletsService {
  constructor(private readonly db: LedgerDb) {}

  /**
   * Idempotent: the wallet of an entity is created once (unique owner), and each missing account
   * is added; calling again returns the same wallet. `created` tells the controller 201 vs 200.
   */
  async create(dto: CreateWalletDto): Promise<{ created: boolean; wallet: WalletView }> {
    const currencies = dto.currencies ?? [...SUPPORTED_CURRENCIES];
    const holder = dto.holderName ?? dto.ownerId;
    const inserted = await this.db.query<{ id: string }>(
      `INSERT INTO ledger.wallets (owner_type, owner_id, holder_name) VALUES ($1, $2, $3)
       ON CONFLICT (owner_type, owner_id) DO NOTHING RETURNING id`,
      [dto.ownerType, dto.ownerId, dto.holderName ?? null],
    );
    const [wallet] = await this.db.query<{ id: string }>(`SELECT id FROM ledger.wallets WHERE owner_type = $1 AND owner_id = $2`, [
      dto.ownerType,
      dto.ownerId,
    ]);
    await this.db.query(
      `INSERT INTO ledger.accounts (wallet_id, account_type, currency, holder)
       SELECT $1, t.type, c.currency, $4 FROM unnest($2::text[]) AS t(type) CROSS JOIN unnest($3::text[]) AS c(currency)
       ON CONFLICT (wallet_id, currency, account_type) DO NOTHING`,
      [wallet.id, ACCOUNT_TYPES[dto.ownerType], currencies, holder],
    );
    return { created: inserted.length > 0, wallet: await this.get(wallet.id) };
  }

  async get(id: string): Promise<WalletView> {
    const [w] = await this.db.query<{
      id: string;
      owner_type: string;
      owner_id: string;
      holder_name: string | null;
      status: string;
      created_at: Date;
    }>(`SELECT id, owner_type, owner_id, holder_name, status, created_at FROM ledger.wallets WHERE id = $1`, [id]);
    if (!w) throw new AppException('WALLET_NOT_FOUND');
    const accounts = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM ledger.accounts WHERE wallet_id = $1 ORDER BY currency, account_type`,
      [id],
    );
    return {
      id: w.id,
      ownerType: w.owner_type,
      ownerId: w.owner_id,
      holderName: w.holder_name,
      status: w.status,
      createdAt: iso(w.created_at)!,
      accounts: accounts.map(toAccountView),
    };
  }

  async getByOwner(ownerType: string, ownerId: string): Promise<WalletView> {
    const [w] = await this.db.query<{ id: string }>(`SELECT id FROM ledger.wallets WHERE owner_type = $1 AND owner_id = $2`, [
      ownerType,
      ownerId,
    ]);
    if (!w) throw new AppException('WALLET_NOT_FOUND');
    return this.get(w.id);
  }

  async account(id: string): Promise<AccountView> {
    const [row] = await this.db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM ledger.accounts WHERE id = $1`, [id]);
    if (!row) throw new AppException('ACCOUNT_NOT_FOUND');
    return toAccountView(row);
  }

  /**
   * Compensation of a registration: closes the wallet of an owner while nothing ever moved through
   * it (no entry, no intent, zero balances); wallet rows are never deleted. Idempotent: a closed
   * wallet answers CLOSED again, an owner without a wallet ABSENT. One statement, so a money
   * movement cannot slip in between the check and the close.
   */
  async closeUnused(ownerType: string, ownerId: string): Promise<{ walletId: string | null; status: 'CLOSED' | 'ABSENT' }> {
    const rows = await this.db.query<{ id: string; status: string; busy: boolean; closed: boolean }>(
      `WITH w AS (
         SELECT id, status FROM ledger.wallets WHERE owner_type = $1 AND owner_id = $2 FOR UPDATE
       ), busy AS (
         SELECT EXISTS (
           SELECT 1 FROM ledger.accounts a JOIN w ON a.wallet_id = w.id
            WHERE a.balance <> 0 OR a.frozen_balance <> 0
               OR EXISTS (SELECT 1 FROM ledger.ledgers l WHERE l.account_id = a.id)
               OR EXISTS (SELECT 1 FROM ledger.transaction_intents i WHERE i.source_account_id = a.id OR i.destination_account_id = a.id)
         ) AS busy
       ), closed AS (
         UPDATE ledger.wallets SET status = 'CLOSED'
           FROM w, busy WHERE wallets.id = w.id AND NOT busy.busy AND w.status <> 'CLOSED' RETURNING wallets.id
       )
       SELECT w.id, w.status, busy.busy, EXISTS (SELECT 1 FROM closed) AS closed FROM w, busy`,
      [ownerType, ownerId],
    );
    const row = rows[0];
    if (!row) return { walletId: null, status: 'ABSENT' };
    if (row.status !== 'CLOSED' && row.busy) throw new AppException('WALLET_NOT_EMPTY');
    return { walletId: row.id, status: 'CLOSED' };
  }

  /** The technical accounts (docs/ledger.md "Wallets and accounts"), per currency. */
  async technicalAccounts(currency?: string): Promise<AccountView[]> {
    const rows = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS.split(', ')
        .map((c) => `a.${c}`)
        .join(', ')} FROM ledger.accounts a JOIN ledger.wallets w ON w.id = a.wallet_id
       WHERE w.owner_type = 'SYSTEM' AND ($1::text IS NULL OR a.currency = $1) ORDER BY a.account_type, a.currency`,
      [currency ?? null],
    );
    return rows.map(toAccountView);
  }
}
