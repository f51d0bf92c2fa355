import { Inject, Injectable } from '@nestjs/common';
import {
  AUTH_INTERNAL_ROUTES,
  type SecondFactorReset,
  type SessionsRevoked,
  type UserSecurityView,
  type LedgerWalletView,
} from '@mm/contracts';
import type { InternalHttpClient } from '@mm/platform';
import { UPSTREAMS, type Upstreams } from '../../gateway/upstreams';

/** A ledger account as `GET /v1/internal/accounts/:id` answers it (the fields read here). */
export interface LedgerAccountRead {
  id: string;
  walletId: string;
  accountType: string;
  currency: string;
}

/** An operator hold as the ledger lists it (`GET /v1/internal/holds`). */
export interface LedgerHoldRead {
  id: string;
  accountId: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  placed?: { at?: string };
}

/**
 * The calls of the people back office to other services, with the orchestrator's own service key:
 * auth for a person's sessions, lockouts and second factor; the ledger for owners of accounts and
 * wallets, balances and holds.
 */
@Injectable()
export class PeopleUpstreams {
  private readonly auth: InternalHttpClient;
  private readonly ledger: InternalHttpClient;

  constructor(@Inject(UPSTREAMS) upstreams: Upstreams) {
    this.auth = upstreams.auth;
    this.ledger = upstreams['ledger-wallets'];
  }

  security(userId: string): Promise<UserSecurityView> {
    return this.auth.get(`${AUTH_INTERNAL_ROUTES.users}/${userId}/security`);
  }

  revokeSessions(userId: string, reason: string): Promise<SessionsRevoked> {
    return this.auth.post(`${AUTH_INTERNAL_ROUTES.users}/${userId}/sessions/revoke-all`, { reason });
  }

  resetSecondFactor(userId: string): Promise<SecondFactorReset> {
    return this.auth.post(`${AUTH_INTERNAL_ROUTES.users}/${userId}/second-factor/reset`);
  }

  account(accountId: string): Promise<LedgerAccountRead> {
    return this.ledger.get(`/v1/internal/accounts/${accountId}`);
  }

  wallet(walletId: string): Promise<LedgerWalletView> {
    return this.ledger.get(`/v1/internal/wallets/${walletId}`);
  }

  /**
   * The active operator holds on one account. The ledger reads holds for operators only: the
   * viewer's own access token goes with the orchestrator's key, as for every operator call.
   */
  holds(accountId: string, viewerToken: string): Promise<LedgerHoldRead[]> {
    return this.ledger.get<LedgerHoldRead[]>(`/v1/internal/holds?accountId=${encodeURIComponent(accountId)}&status=ACTIVE`, {
      headers: { authorization: `Bearer ${viewerToken}` },
    });
  }
}
