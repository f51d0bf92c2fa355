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
  abstract setPin(id: string, pin: string): Promise<void>;
  /** True when it existed. */
  abstract deleteUser(id: string): Promise<boolean>;
}
