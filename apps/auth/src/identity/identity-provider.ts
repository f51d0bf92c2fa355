import type { EntityManager } from 'typeorm';

/** A credential record of the identity provider. */
export interface IdpUser {
  id: string;
  phone: string;
}

/**
 * The identity provider: holds credentials only (phone + PIN). The local store holds roles,
 * status and lockout. This is the seam where a Keycloak-style adapter would replace
 * `LocalIdentityProvider` (docs/registration.md "Steps").
 */
export abstract class IdentityProvider {
  /**
   * Creates the credential, with the caller's id when given. Idempotent: the same phone + PIN (and
   * the same id, when one is given) already there answers that record with `created: false`.
   */
  abstract createUser(phone: string, pin: string, id?: string): Promise<{ user: IdpUser; created: boolean }>;
  abstract findById(id: string): Promise<IdpUser | undefined>;
  /** Constant-work check: an unknown id costs the same as a wrong PIN. */
  abstract verifyPin(id: string | undefined, pin: string): Promise<boolean>;
  /**
   * Replaces the PIN; with `manager`, inside the caller's transaction (a reset or change stores the
   * new PIN in the transaction that records the replacement and ends the sessions, so that either all
   * of it happens or none).
   */
  abstract setPin(id: string, pin: string, manager?: EntityManager): Promise<void>;
  /** True when it existed. */
  abstract deleteUser(id: string): Promise<boolean>;
}
