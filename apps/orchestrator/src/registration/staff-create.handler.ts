import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException, type FieldError } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import type { ApprovalHandler } from '../approvals/approval-handler';
import { AuthIdentityClient } from '../clients/identity-clients';
import { SUPPORTED_COUNTRIES } from '../common/countries';
import { E164, maskPhone } from '../common/validators';
import { RegistrationService } from './registration.service';
import type { RegistrationResult } from './registration.types';

/** The staff roles that can decide maker-checker requests: creating one is STAFF_CREATE. */
export const CHECKER_STAFF_ROLES = ['COMPLIANCE', 'ADMIN'] as const;
export type CheckerStaffRole = (typeof CHECKER_STAFF_ROLES)[number];

/** The request's payload: who is created. Never a PIN (the table keeps payloads for good, and shows them). */
export interface StaffCreatePayload {
  role: CheckerStaffRole;
  phone: string;
  firstName: string;
  lastName: string;
  countryCode: string;
  email?: string;
}

/**
 * The PIN the maker typed, for an execution that runs inside the maker's own request (the action
 * configured for one pair of eyes): never stored, gone when that request ends. An execution by a
 * checker or by the sweep finds nothing here and creates the user with a random PIN nobody knows.
 */
const makersPin = new AsyncLocalStorage<string>();

export function withMakersPin<T>(pin: string, work: () => Promise<T>): Promise<T> {
  return makersPin.run(pin, work);
}

/** A PIN auth's rule accepts (not one digit repeated, not a run, not a repeated pair, not the phone's end), drawn at random. */
export function randomStaffPin(phone: string): string {
  for (;;) {
    const pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const d = [...pin].map(Number);
    const steps = d.slice(1).map((x, i) => (x - d[i] + 10) % 10);
    const weak =
      d.every((x) => x === d[0]) ||
      steps.every((s) => s === 1) ||
      steps.every((s) => s === 9) ||
      pin === pin.slice(0, 2).repeat(3) ||
      phone.endsWith(pin);
    if (!weak) return pin;
  }
}

const NAME = (v: unknown) => typeof v === 'string' && /\S/.test(v) && [...v].length <= 100;
const RULES: Record<keyof StaffCreatePayload, { test: (v: unknown) => boolean; code: string; message: string; optional?: true }> = {
  role: {
    test: (v) => (CHECKER_STAFF_ROLES as readonly unknown[]).includes(v),
    code: 'INVALID_ROLE',
    message: 'must be COMPLIANCE or ADMIN',
  },
  phone: { test: (v) => typeof v === 'string' && E164.test(v), code: 'INVALID_PHONE_FORMAT', message: 'must be in E.164 format' },
  firstName: { test: NAME, code: 'INVALID_NAME', message: 'must be 1 to 100 characters, not blank' },
  lastName: { test: NAME, code: 'INVALID_NAME', message: 'must be 1 to 100 characters, not blank' },
  countryCode: {
    test: (v) => (SUPPORTED_COUNTRIES as readonly unknown[]).includes(v),
    code: 'INVALID_COUNTRY_CODE',
    message: 'must be a supported country',
  },
  email: {
    test: (v) => typeof v === 'string' && v.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
    code: 'INVALID_EMAIL',
    message: 'must be an email address',
    optional: true,
  },
};

/**
 * STAFF_CREATE: a compliance officer or an administrator is created, i.e. one more person who can
 * decide requests. Four eyes: an administrator asks (`users.manage`), another person who can
 * decide requests approves (`transactions.approve`: a compliance officer or another
 * administrator), so that nobody gives themselves a second pair of eyes. The one exception (the
 * platform's first checker, created by the bootstrap administrator) never reaches the engine:
 * see `StaffCreationService`.
 *
 * The payload has no PIN. Approved by a checker, the user is created with a random PIN that no one
 * is told: the staff member sets their own through the PIN reset by SMS
 * (`POST /api/auth/reset-pin/request`, then `POST /api/orchestrator/auth/reset-pin`), then signs
 * in and enrols the second factor. Carried out inside the maker's own request (one-person
 * configuration), the PIN the maker typed is used, as before. The registration runs with the
 * request id as its idempotency key, so running `execute` again creates nobody twice.
 */
@Injectable()
export class StaffCreateHandler implements ApprovalHandler<StaffCreatePayload> {
  readonly action = 'STAFF_CREATE' as const;
  readonly makerPermission = 'users.manage' as const;
  readonly checkerPermission = 'transactions.approve' as const;
  readonly fourEyesMandatory = false;

  constructor(
    private readonly registrations: RegistrationService,
    private readonly auth: AuthIdentityClient,
  ) {}

  parse(payload: unknown): StaffCreatePayload {
    const body = (typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : {}) as Record<string, unknown>;
    const errors: FieldError[] = [];
    const out: Record<string, unknown> = {};
    for (const [field, rule] of Object.entries(RULES)) {
      const value = body[field];
      if (value === undefined) {
        if (!rule.optional) errors.push({ field: `payload.${field}`, code: 'REQUIRED', message: 'is required' });
      } else if (!rule.test(value)) errors.push({ field: `payload.${field}`, code: rule.code, message: rule.message });
      else out[field] = value;
    }
    for (const field of Object.keys(body)) {
      if (!(field in RULES)) errors.push({ field: `payload.${field}`, code: 'UNKNOWN_FIELD', message: 'is not allowed' });
    }
    if (errors.length > 0) throw new AppException('VALIDATION_ERROR', errors.map((e) => `${e.field} ${e.message}`).join('; '), { errors });
    return out as unknown as StaffCreatePayload;
  }

  describe(payload: StaffCreatePayload) {
    const who = payload.role === 'ADMIN' ? 'an administrator' : 'a compliance officer';
    return {
      target: { type: 'user' as const, id: payload.phone },
      summary: `Create ${who}: ${payload.firstName} ${payload.lastName}, ${maskPhone(payload.phone)}`,
    };
  }

  /** One live creation per phone number. */
  dedupKey(payload: StaffCreatePayload): string {
    return payload.phone;
  }

  /** A phone that already has an account is refused now, not after a checker approved. */
  async prepare(payload: StaffCreatePayload): Promise<null> {
    await this.refuseKnownPhone(payload.phone);
    return null;
  }

  async preview(payload: StaffCreatePayload) {
    return {
      role: payload.role,
      phone: payload.phone,
      name: `${payload.firstName} ${payload.lastName}`,
      countryCode: payload.countryCode,
      email: payload.email ?? null,
      effect:
        'A staff user is created with this role and can decide maker-checker requests. No PIN is set for them: they choose theirs by the PIN reset by SMS, then enrol their second factor at their first sign-in',
    };
  }

  async execute(payload: StaffCreatePayload, _prepared: unknown, checker: AuthUser, requestId: string): Promise<RegistrationResult> {
    const { role, ...person } = payload;
    const { result } = await this.registrations.register(
      role === 'ADMIN' ? 'REGISTER_ADMIN' : 'REGISTER_STAFF',
      role === 'ADMIN' ? person : { ...person, staffRole: role },
      makersPin.getStore() ?? randomStaffPin(payload.phone),
      { idempotencyKey: `approval:${requestId}`, requestedBy: checker.userId },
    );
    return result;
  }

  private async refuseKnownPhone(phone: string): Promise<void> {
    const known = await this.auth.userByPhone(phone).then(
      () => true,
      (error: unknown) => (error instanceof AppException && error.code === 'USER_NOT_FOUND' ? false : Promise.reject(error)),
    );
    if (known) throw new AppException('USER_ALREADY_EXISTS');
  }
}
