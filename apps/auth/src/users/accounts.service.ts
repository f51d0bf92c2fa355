import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { Role } from '../common/roles';
import { maskPhone } from '../common/phone';
import { assertPinRule } from '../crypto/pin-policy';
import { IdentityProvider } from '../identity/identity-provider';
import { SessionService } from '../sessions/session.service';
import { type UserView, toUserView } from './local-user';
import { LocalUserStore } from './local-user.store';

/**
 * The single steps of registration (spec 3, each idempotent, used by the orchestrator's saga
 * through the internal endpoints) and their composition for the deprecated routes and the
 * bootstrap administrator.
 */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger(AccountsService.name);

  constructor(
    private readonly idp: IdentityProvider,
    private readonly users: LocalUserStore,
    private readonly sessions: SessionService,
  ) {}

  async createIdpUser(phone: string, pin: string): Promise<{ idpUserId: string; phone: string; created: boolean }> {
    assertPinRule(pin, phone);
    const { user, created } = await this.idp.createUser(phone, pin);
    if (created) this.logger.log({ msg: 'identity-provider user created', idpUserId: user.id, phone: maskPhone(phone) });
    return { idpUserId: user.id, phone: user.phone, created };
  }

  async createLocalUser(input: { idpUserId: string; roles: Role[]; profileId?: string }): Promise<{ user: UserView; created: boolean }> {
    const idpUser = await this.idp.findById(input.idpUserId);
    if (!idpUser) throw new AppException('USER_NOT_FOUND', 'Identity-provider user not found');
    const { user, created } = await this.users.create({
      idpUserId: idpUser.id,
      phone: idpUser.phone,
      roles: input.roles,
      profileId: input.profileId,
    });
    if (created) this.logger.log({ msg: 'local user created', userId: user.id, roles: user.roles });
    return { user: toUserView(user), created };
  }

  /** Compensation: succeeds whether or not the user still exists. */
  async deleteIdpUser(id: string): Promise<void> {
    if (await this.idp.deleteUser(id)) this.logger.log({ msg: 'identity-provider user deleted', idpUserId: id });
  }

  /** Compensation: ends the user's sessions with it; succeeds whether or not the user still exists. */
  async deleteLocalUser(id: string): Promise<void> {
    await this.sessions.revokeAllForUser(id, 'USER_DELETED');
    if (await this.users.delete(id)) this.logger.log({ msg: 'local user deleted', userId: id });
  }

  /** Both steps, undoing the first if the second fails (deprecated routes, bootstrap admin). */
  async register(phone: string, pin: string, roles: Role[]): Promise<UserView> {
    if (await this.users.findByPhone(phone)) throw new AppException('USER_ALREADY_EXISTS');
    const idp = await this.createIdpUser(phone, pin);
    try {
      return (await this.createLocalUser({ idpUserId: idp.idpUserId, roles })).user;
    } catch (error) {
      if (idp.created) await this.deleteIdpUser(idp.idpUserId);
      throw error;
    }
  }
}
