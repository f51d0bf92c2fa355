import { Injectable } from '@nestjs/common';
import { type LedgerWalletView, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { AppException } from '@mm/errors';
import type { DbSession } from '../db/db-session';
import { moneyLockKeys } from '../db/lock-keys';
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
   * wallet answers CLOSED again, an owner without a wallet ABSENT. A closed wallet takes part in no
   * money movement any more (intent creation and the confirm refuse it, docs/ledger.md "Wallets and
   * accounts"), so the check and the close must not let one slip in between: the close is a money
   * transaction like theirs (`LedgerDb.serializable`), holding the advisory locks of every account
   * of the wallet and their rows. A creation from, or a confirm on, one of the accounts holds the
   * same account lock: it either committed before (the close sees its intent and refuses) or starts
   * after (it sees CLOSED). A creation paying into the wallet locks only its source; it and the close
   * are both SERIALIZABLE and each reads what the other writes, so they cannot both commit.
   */
  async closeUnused(ownerType: string, ownerId: string): Promise<{ walletId: string | null; status: 'CLOSED' | 'ABSENT' }> {
    for (let attempt = 0; ; attempt++) {
      const [wallet] = await this.db.query<{ id: string; status: string; accounts: string[] }>(
        `SELECT w.id, w.status, ARRAY(SELECT a.id FROM ledger.accounts a WHERE a.wallet_id = w.id ORDER BY a.id) AS accounts
           FROM ledger.wallets w WHERE w.owner_type = $1 AND w.owner_id = $2`,
        [ownerType, ownerId],
      );
      if (!wallet) return { walletId: null, status: 'ABSENT' };
      // Nothing reopens a wallet: CLOSED needs no lock to be answered again.
      if (wallet.status === 'CLOSED') return { walletId: wallet.id, status: 'CLOSED' };
      const closed = await this.db.withSession((session) =>
        this.db.serializable(session, moneyLockKeys(wallet.accounts), (s) => this.closeLocked(s, wallet.id, wallet.accounts)),
      );
      if (closed) return { walletId: wallet.id, status: 'CLOSED' };
      // An account was added to the wallet after it was read (wallet creation is idempotent and adds
      // missing accounts): its advisory lock is not held, so read and lock again.
      if (attempt >= 2) throw new AppException('CONCURRENCY_CONFLICT', 'The wallet kept changing while it was being closed');
    }
  }

  /**
   * The close itself, inside the money transaction holding the advisory locks of `accounts`: false
   * when the wallet no longer has exactly those accounts (nothing done), else the wallet is CLOSED.
   */
  private async closeLocked(s: DbSession, walletId: string, accounts: string[]): Promise<boolean> {
    // The account rows, in the order every money path locks them (ascending ids), then the wallet.
    const locked = await s.query<{ id: string }>(`SELECT id FROM ledger.accounts WHERE wallet_id = $1 ORDER BY id FOR UPDATE`, [walletId]);
    if (locked.length !== accounts.length || locked.some((a, i) => a.id !== accounts[i])) return false;
    // Read after the locks: an intent created or confirmed on these accounts before them is seen.
    const row = await s.one<{ status: string; busy: boolean }>(
      `SELECT w.status,
              EXISTS (SELECT 1 FROM ledger.accounts a WHERE a.id = ANY ($2::uuid[]) AND (a.balance <> 0 OR a.frozen_balance <> 0))
              OR EXISTS (SELECT 1 FROM ledger.ledgers l WHERE l.account_id = ANY ($2::uuid[]))
              OR EXISTS (SELECT 1 FROM ledger.transaction_intents i WHERE i.source_account_id = ANY ($2::uuid[]))
              OR EXISTS (SELECT 1 FROM ledger.transaction_intents i WHERE i.destination_account_id = ANY ($2::uuid[])) AS busy
         FROM ledger.wallets w WHERE w.id = $1 FOR UPDATE`,
      [walletId, accounts],
    );
    if (row!.status === 'CLOSED') return true;
    if (row!.busy) throw new AppException('WALLET_NOT_EMPTY');
    await s.query(`UPDATE ledger.wallets SET status = 'CLOSED' WHERE id = $1`, [walletId]);
    return true;
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
