import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { withSessionLockWaiting } from '@mm/platform';
import type { AuthUser } from '../access/permissions';
import type { ApprovalRequestView } from '../approvals/approval.views';
import { ApprovalsService } from '../approvals/approvals.service';
import { maskPhone } from '../common/validators';
import { SagaLog } from '../workflows/saga-log.service';
import { type RegistrationOptions, RegistrationService } from './registration.service';
import type { RegistrationInput, RegistrationKind, RegistrationResult } from './registration.types';
import { CHECKER_STAFF_ROLES, type CheckerStaffRole, type StaffCreatePayload, withMakersPin } from './staff-create.handler';

/** Arbitrary constant: the advisory lock that lets one bootstrap exception run at a time, across replicas. */
const BOOTSTRAP_EXCEPTION_LOCK = 0x73746166;

export type StaffCreation =
  { kind: 'created'; result: RegistrationResult; replayed: boolean } | { kind: 'requested'; request: ApprovalRequestView };

/**
 * Staff creation by an administrator (`POST /api/orchestrator/admin/staff`,
 * `POST /api/orchestrator/auth/register/admin`):
 *
 * - a support operator or an auditor decides nothing: created at once, as before;
 * - a compliance officer or an administrator can decide requests: the maker-checker action
 *   STAFF_CREATE (another checker approves; at once when configured for one pair of eyes);
 * - the bootstrap exception: while nobody but the maker could ever check (the platform has only
 *   the bootstrap administrator, who is not a staff record of the orchestrator, and no compliance
 *   officer or administrator was ever created here), that first creation is made at once, or nobody
 *   could ever be the second pair of eyes. The check and the creation run under one advisory lock,
 *   so two such requests at once make one checker, and the second waits for a second person. The
 *   registration's saga log records `bootstrapException: true`, and so does the answer.
 */
@Injectable()
export class StaffCreationService {
  private readonly logger = new Logger(StaffCreationService.name);

  constructor(
    private readonly db: DataSource,
    private readonly registrations: RegistrationService,
    private readonly approvals: ApprovalsService,
    private readonly log: SagaLog,
  ) {}

  async create(
    kind: Extract<RegistrationKind, 'REGISTER_ADMIN' | 'REGISTER_STAFF'>,
    input: RegistrationInput,
    pin: string,
    options: RegistrationOptions,
    maker: AuthUser,
  ): Promise<StaffCreation> {
    const role = kind === 'REGISTER_ADMIN' ? 'ADMIN' : (input.staffRole ?? 'SUPPORT');
    // a repeat of a registration that ran (Idempotency-Key) answers as the first run did
    const ran = options.idempotencyKey !== undefined && (await this.log.byKey(options.idempotencyKey)) !== undefined;
    if (ran || !(CHECKER_STAFF_ROLES as readonly string[]).includes(role)) {
      return { kind: 'created', ...(await this.registrations.register(kind, input, pin, options)) };
    }
    const bootstrap = await this.bootstrapException(kind, input, pin, options, maker);
    if (bootstrap) return bootstrap;
    const { staffRole: _role, ...person } = input;
    const payload: StaffCreatePayload = { role: role as CheckerStaffRole, ...person };
    const request = await withMakersPin(pin, () =>
      this.approvals.submit(maker, {
        action: 'STAFF_CREATE',
        payload,
        reason: `New ${role === 'ADMIN' ? 'administrator' : 'compliance officer'} ${input.firstName} ${input.lastName}`,
      }),
    );
    if (request.status === 'PENDING') return { kind: 'requested', request };
    return { kind: 'created', result: request.result as unknown as RegistrationResult, replayed: false };
  }

  /** The first checker of the platform, created at once by the bootstrap administrator; null when the exception does not apply. */
  private async bootstrapException(
    kind: RegistrationKind,
    input: RegistrationInput,
    pin: string,
    options: RegistrationOptions,
    maker: AuthUser,
  ): Promise<StaffCreation | null> {
    // Checked first without the lock: a "does not apply" is as true now as it would be under the
    // lock (the lock only keeps two creations from both passing the check), so once a checker
    // exists, creations no longer pay for a lock connection.
    if (!(await this.exceptionApplies(maker))) return null;
    // The lock waits on a connection outside the pool: register() needs pooled connections, and
    // waiters each holding a pooled one could leave none for the holder (the pool's self-deadlock).
    return withSessionLockWaiting(this.db, '$1::bigint', [BOOTSTRAP_EXCEPTION_LOCK], async () => {
      if (!(await this.exceptionApplies(maker))) return null;
      const { result, replayed } = await this.registrations.register(kind, input, pin, { ...options, bootstrapException: true });
      this.logger.warn({
        msg: 'bootstrap exception: the first checker created by one person (nobody else could check)',
        makerId: maker.userId,
        userId: result.userId,
        role: result.role,
        phone: maskPhone(input.phone),
      });
      return { kind: 'created', result, replayed };
    });
  }

  private async exceptionApplies(maker: AuthUser): Promise<boolean> {
    const [row] = (await this.db.query(
      `SELECT EXISTS (SELECT 1 FROM orchestrator.staff WHERE user_id = $1) AS maker_is_staff,
              EXISTS (SELECT 1 FROM orchestrator.staff WHERE role IN ('COMPLIANCE', 'ADMIN')) AS checker_exists`,
      [maker.userId],
    )) as Array<{ maker_is_staff: boolean; checker_exists: boolean }>;
    return !row.maker_is_staff && !row.checker_exists;
  }
}
