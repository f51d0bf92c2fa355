import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { Role } from '../common/roles';
import { maskPhone } from '../common/phone';
import { assertPinRule } from '../crypto/pin-policy';
import { IdentityProvider } from '../identity/identity-provider';
import { type RevokeReason, SessionService } from '../sessions/session.service';
import { type UserView, toUserView } from './local-user';
import { LocalUserStore } from './local-user.store';

/** Why a status or role change ends the user's sessions (allowed by the application-roles migration). */
const ACCOUNT_DISABLED: RevokeReason = 'ACCOUNT_DISABLED';
const ROLE_CHANGED: RevokeReason = 'ROLE_CHANGED';

/**
 * The single steps of registration (docs/registration.md "Internal routes used", each idempotent, used by the orchestrator's saga
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

  async createIdpUser(phone: string, pin: string, id?: string): Promise<{ idpUserId: string; phone: string; created: boolean }> {
    assertPinRule(pin, phone);
    const { user, created } = await this.idp.createUser(phone, pin, id);
    if (created) this.logger.log({ msg: 'identity-provider user created', idpUserId: user.id, phone: maskPhone(phone) });
    return { idpUserId: user.id, phone: user.phone, created };
  }

  async createLocalUser(input: {
    idpUserId: string;
    roles: Role[];
    userId?: string;
    profileId?: string;
    status?: 'ACTIVE' | 'DISABLED';
  }): Promise<{ user: UserView; created: boolean }> {
    const idpUser = await this.idp.findById(input.idpUserId);
    if (!idpUser) throw new AppException('USER_NOT_FOUND', 'Identity-provider user not found');
    const { user, created } = await this.users.create({
      id: input.userId,
      idpUserId: idpUser.id,
      phone: idpUser.phone,
      roles: input.roles,
      profileId: input.profileId,
      status: input.status,
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

  async findByPhone(phone: string): Promise<UserView> {
    const user = await this.users.findByPhone(phone);
    if (!user) throw new AppException('USER_NOT_FOUND');
    return toUserView(user);
  }

  /**
   * ACTIVE or DISABLED (a frozen customer). Disabling ends every session at once: their tokens are
   * refused everywhere (database and Redis marker) and login answers ACCOUNT_DISABLED. Idempotent.
   */
  async setStatus(id: string, status: 'ACTIVE' | 'DISABLED'): Promise<UserView> {
    const user = await this.users.setStatus(id, status);
    if (!user) throw new AppException('USER_NOT_FOUND');
    if (status === 'DISABLED') {
      const ended = await this.sessions.revokeAllForUser(id, ACCOUNT_DISABLED);
      if (ended.length > 0) this.logger.log({ msg: 'user disabled: sessions ended', userId: id, sessions: ended.length });
    }
    return toUserView(user);
  }

  /**
   * A role change ends the user's sessions, so no token still carries the old role: the user signs
   * in again and gets the new one. Setting the roles the user already has changes nothing.
   */
  async setRoles(id: string, roles: Role[]): Promise<UserView> {
    const before = await this.users.findById(id);
    if (!before) throw new AppException('USER_NOT_FOUND');
    const wanted = [...new Set(roles)].sort();
    if (before.roles.join() === wanted.join()) return toUserView(before);
    const user = await this.users.setRoles(id, wanted);
    if (!user) throw new AppException('USER_NOT_FOUND');
    await this.sessions.revokeAllForUser(id, ROLE_CHANGED);
    this.logger.log({ msg: 'user roles changed: sessions ended', userId: id, from: before.roles, to: user.roles });
    return toUserView(user);
  }

  /** Both steps, undoing the first if the second fails (the bootstrap administrator). */
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
