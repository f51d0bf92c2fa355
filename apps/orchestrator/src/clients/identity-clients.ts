import { Inject, Injectable } from '@nestjs/common';
import {
  AUTH_INTERNAL_ROUTES,
  type AppRole,
  type CreateIdpUserResponse,
  type InternalUserView,
  type LedgerWalletView,
} from '@mm/contracts';
import { CONFIG, InternalHttpClient } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';

/** Auth's internal identity endpoints (service key), one method per registration step (docs/registration.md "Internal routes used"). */
@Injectable()
export class AuthIdentityClient {
  private readonly http: InternalHttpClient;

  constructor(@Inject(CONFIG) config: OrchestratorConfig) {
    this.http = new InternalHttpClient({
      name: 'auth',
      baseUrl: config.AUTH_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  createIdpUser(body: { phone: string; pin: string; idpUserId: string }): Promise<CreateIdpUserResponse> {
    return this.http.post(AUTH_INTERNAL_ROUTES.createIdpUser, body);
  }

  createLocalUser(body: {
    idpUserId: string;
    userId: string;
    roles: AppRole[];
    profileId?: string;
    status: 'ACTIVE' | 'DISABLED';
  }): Promise<InternalUserView> {
    return this.http.post(AUTH_INTERNAL_ROUTES.createLocalUser, body);
  }

  async deleteIdpUser(id: string): Promise<void> {
    await this.http.delete(`${AUTH_INTERNAL_ROUTES.idpUser}/${id}`);
  }

  async deleteLocalUser(id: string): Promise<void> {
    await this.http.delete(`${AUTH_INTERNAL_ROUTES.localUser}/${id}`);
  }

  setStatus(userId: string, status: 'ACTIVE' | 'DISABLED'): Promise<InternalUserView> {
    return this.http.put(`${AUTH_INTERNAL_ROUTES.users}/${userId}/status`, { status });
  }

  setRoles(userId: string, roles: AppRole[]): Promise<InternalUserView> {
    return this.http.put(`${AUTH_INTERNAL_ROUTES.users}/${userId}/roles`, { roles });
  }

  userByPhone(phone: string): Promise<InternalUserView> {
    return this.http.get(`${AUTH_INTERNAL_ROUTES.userByPhone}?phone=${encodeURIComponent(phone)}`);
  }

  verifyResetPinOtp(phone: string, otp: string): Promise<{ resetToken: string }> {
    return this.http.post(AUTH_INTERNAL_ROUTES.verifyResetPinOtp, { phone, otp });
  }

  resetPin(phone: string, resetToken: string, newPin: string): Promise<{ reset: true; userId: string }> {
    return this.http.post(AUTH_INTERNAL_ROUTES.resetPin, { phone, resetToken, newPin });
  }
}

export type WalletOwnerType = 'USER' | 'AGENT' | 'MERCHANT' | 'ORGANISATION';

/** The ledger's wallet endpoints (private network, service key). */
@Injectable()
export class LedgerWalletsClient {
  private readonly http: InternalHttpClient;

  constructor(@Inject(CONFIG) config: OrchestratorConfig) {
    this.http = new InternalHttpClient({
      name: 'ledger-wallets',
      baseUrl: config.LEDGER_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  /** Idempotent per owner: the same owner again answers the same wallet. */
  createWallet(ownerType: WalletOwnerType, ownerId: string, holderName: string): Promise<LedgerWalletView> {
    return this.http.post('/v1/internal/wallets', { ownerType, ownerId, holderName });
  }

  /** Compensation: closes the owner's wallet if nothing moved through it; an absent wallet is fine. */
  closeWallet(ownerType: WalletOwnerType, ownerId: string): Promise<{ walletId: string | null; status: string }> {
    return this.http.post('/v1/internal/wallets/close', { ownerType, ownerId });
  }

  wallet(walletId: string): Promise<LedgerWalletView> {
    return this.http.get(`/v1/internal/wallets/${walletId}`);
  }
}
