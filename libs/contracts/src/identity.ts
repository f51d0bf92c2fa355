/**
 * Application roles (docs/roles.md "Roles"), one per user. Auth stores them on the local user and
 * puts them in the access token; the orchestrator grants permissions from them (its role matrix).
 * Names are part of the contract: add, never rename. `CUSTOMER` is the end user of that table.
 */
export const APP_ROLES = ['CUSTOMER', 'MERCHANT', 'AGENT', 'MASTER_AGENT', 'SUPPORT', 'COMPLIANCE', 'ADMIN', 'AUDITOR'] as const;
export type AppRole = (typeof APP_ROLES)[number];

/** Roles held by people with a wallet (registered through the public registration routes). */
export const CUSTOMER_ROLES = ['CUSTOMER', 'MERCHANT', 'AGENT', 'MASTER_AGENT'] as const satisfies readonly AppRole[];
export type CustomerRole = (typeof CUSTOMER_ROLES)[number];

/** Staff roles: no wallet, created by an administrator. AUDITOR reads everything staff read and changes nothing. */
export const STAFF_ROLES = ['SUPPORT', 'COMPLIANCE', 'ADMIN', 'AUDITOR'] as const satisfies readonly AppRole[];
export type StaffRole = (typeof STAFF_ROLES)[number];

/** Status of a customer in the orchestrator's customer module. */
export const CUSTOMER_STATUSES = ['active', 'frozen', 'closed'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

/**
 * Auth's internal endpoints the orchestrator's workflows call (service key). Besides the steps of
 * registration and PIN reset (docs/registration.md "Internal routes used": create/delete
 * identity-provider and local users, verify the reset OTP, reset the PIN):
 */
export const AUTH_INTERNAL_ROUTES = {
  createIdpUser: '/auth/internal/create-idp-user',
  createLocalUser: '/auth/internal/create-local-user',
  idpUser: '/auth/internal/idp-user',
  localUser: '/auth/internal/local-user',
  verifyResetPinOtp: '/auth/internal/verify-reset-pin-otp',
  resetPin: '/auth/internal/reset-pin',
  introspect: '/auth/internal/introspect',
  /** GET `?phone=` → InternalUserView or 404 USER_NOT_FOUND */
  userByPhone: '/auth/internal/users/by-phone',
  /** PUT `/auth/internal/users/:id/status` { status } — DISABLED also ends every session */
  users: '/auth/internal/users',
} as const;

/** `POST /auth/internal/create-idp-user`: the caller may choose the id, so a retry or a compensation targets exactly its own user. */
export interface CreateIdpUserRequest {
  phone: string;
  pin: string;
  idpUserId?: string;
}
export interface CreateIdpUserResponse {
  idpUserId: string;
  phone: string;
  /** false when this call found the very same user already there (a replay) */
  created: boolean;
}

export interface CreateLocalUserRequest {
  idpUserId: string;
  roles: AppRole[];
  /** the caller's choice of id (see CreateIdpUserRequest) */
  userId?: string;
  profileId?: string;
  /** DISABLED until the workflow's last step activates the user (no login before); default ACTIVE */
  status?: 'ACTIVE' | 'DISABLED';
}

export interface InternalUserView {
  id: string;
  phone: string;
  roles: AppRole[];
  status: 'ACTIVE' | 'DISABLED';
  profileId: string | null;
  createdAt: string;
}

/** `PUT /auth/internal/users/:id/status` */
export interface SetUserStatusRequest {
  status: 'ACTIVE' | 'DISABLED';
}
/** `PUT /auth/internal/users/:id/roles`: ends the user's sessions so that new tokens carry the new role */
export interface SetUserRolesRequest {
  roles: AppRole[];
}

export type IntrospectionResponse =
  { active: false; reason: string } | { active: true; sub: string; sid: string; jti: string; roles: AppRole[]; exp: number };
