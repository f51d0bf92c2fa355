import type { Role } from '../common/roles';

/** A local user: the platform's view of an account (roles, status, lockout), linked to an IdP user. */
export interface LocalUser {
  id: string;
  idpUserId: string;
  phone: string;
  roles: Role[];
  status: 'ACTIVE' | 'DISABLED';
  profileId: string | null;
  failedPinAttempts: number;
  lockedUntil: Date | null;
  hardLocked: boolean;
  createdAt: Date;
  /** when a reset or change last replaced the PIN (null: never since the account was made) */
  pinSetAt: Date | null;
}

/** What leaves the service about a user (never lockout internals). */
export interface UserView {
  id: string;
  phone: string;
  roles: Role[];
  status: 'ACTIVE' | 'DISABLED';
  profileId: string | null;
  createdAt: string;
}

export function toUserView(user: LocalUser): UserView {
  return {
    id: user.id,
    phone: user.phone,
    roles: user.roles,
    status: user.status,
    profileId: user.profileId,
    createdAt: user.createdAt.toISOString(),
  };
}
