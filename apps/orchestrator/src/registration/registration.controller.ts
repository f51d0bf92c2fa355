import { Body, Controller, Headers, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { CONFIG } from '@mm/platform';
import { type AuthUser, CurrentUser, PublicRoute, RequirePermission } from '../access/permissions';
import { DeprecatedRoute } from '../access/deprecated-route';
import { ApprovalRequestView } from '../approvals/approval.views';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import type { OrchestratorConfig } from '../orchestrator.config';
import { FAULT_HEADER, parseFaults } from '../workflows/fault-injection';
import { CreateStaffDto, RegisterAdminDto, RegisterAgentDto, RegisterDto, RegisterMerchantDto, ResetPinDto } from './dto/register.dto';
import { ApiRegistrationBody } from './dto/register-examples';
import { PinResetView, RegistrationView } from './dto/registration.views';
import { PinResetWorkflow } from './pin-reset.service';
import { RegistrationService } from './registration.service';
import { StaffCreationService } from './staff-creation.service';
import type { CreatedStaffRole, RegistrationInput, RegistrationKind, RegistrationResult } from './registration.types';

const REGISTRATION_ERRORS = [
  'VALIDATION_ERROR',
  'USER_ALREADY_EXISTS',
  'PIN_POLICY_VIOLATION',
  'IDEMPOTENCY_KEY_CONFLICT',
  'IDEMPOTENCY_KEY_IN_PROGRESS',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'SERVICE_UNAVAILABLE',
] as const;

/** Creating a compliance officer or an administrator may be a maker-checker request (STAFF_CREATE). */
const STAFF_CREATION_ERRORS = [...REGISTRATION_ERRORS, 'APPROVAL_DUPLICATE_PENDING'] as const;

const STAFF_CREATION_FOUR_EYES =
  ' Creating a compliance officer or an administrator (people who can decide maker-checker requests) is the maker-checker action STAFF_CREATE: 202 with the pending request, which another compliance officer or administrator approves; the request keeps no PIN, so the new staff member sets theirs by the PIN reset by SMS, then enrols the second factor. 201 as before when APPROVALS_ONE_PERSON_ACTIONS lists STAFF_CREATE, and for the platform’s first such user created by the bootstrap administrator (nobody else could approve it; the answer says bootstrapException: true).';

const ApiStaffPending = () =>
  ApiResponse({
    status: 202,
    type: ApprovalRequestView,
    description: 'STAFF_CREATE asked: the request waits for another compliance officer or administrator (PENDING); no PIN is kept',
  });

/** The routes anyone may call are throttled per phone and per client address (the admin ones are not). */
const PUBLIC_REGISTRATION_ERRORS = [...REGISTRATION_ERRORS, 'RATE_LIMITED'] as const;

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$', example: '5d2c9e1f-7a3b-4c8d-9e0f-1a2b3c4d5e6f' },
  description:
    'Makes a retry safe: the same key with the same body answers the first outcome (201 with Idempotent-Replayed: true), even while it is still running (the repeat waits); with another body 422 IDEMPOTENCY_KEY_CONFLICT. A run that failed with a 5xx frees its key for a retry. The PIN is not part of the comparison (it is never stored).',
};

const PIN_RESET_SUMMARY =
  'PIN reset: verifies the PIN_RESET code (sent by POST /api/auth/reset-pin/request) through auth, finds the user, sets the new PIN, unlocks the account and ends every session. An unknown phone answers like a phone without a live code (OTP_EXPIRED). Throttled per phone and per client (429 RATE_LIMITED, Retry-After).';
const PIN_RESET_ERRORS = [
  'VALIDATION_ERROR',
  'OTP_INVALID',
  'OTP_EXPIRED',
  'OTP_ATTEMPTS_EXHAUSTED',
  'PIN_POLICY_VIOLATION',
  'RESET_TOKEN_INVALID',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
] as const;

/**
 * The identity workflows (docs/registration.md "Routes"): registration of every kind of user and PIN reset, at their target paths
 * (`/api/orchestrator/auth/*`) and at the old ones (`/api/auth/register*`, `/api/auth/reset-pin/confirm`,
 * deprecated: same behaviour, plus `Deprecation` and `Link` headers).
 */
@ApiTags('registration')
@Controller()
export class RegistrationController {
  constructor(
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
    private readonly registrations: RegistrationService,
    private readonly pinReset: PinResetWorkflow,
    private readonly staffCreation: StaffCreationService,
  ) {}

  @Post('orchestrator/auth/register')
  @PublicRoute()
  @HttpCode(201)
  @ApiOperation({ summary: 'Registers an end user: identity, customer and profile, wallet with XAF and XOF accounts, welcome SMS.' })
  @ApiRegistrationBody('customer')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiErrors(...PUBLIC_REGISTRATION_ERRORS)
  register(
    @Body() body: RegisterDto,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.run('REGISTER_CUSTOMER', body, headers, reply, { clientIp: request.ip });
  }

  @Post('orchestrator/auth/register/merchant')
  @PublicRoute()
  @HttpCode(201)
  @ApiOperation({ summary: 'Registers a merchant: as an end user, plus the merchant record (business name, category) owning the wallet.' })
  @ApiRegistrationBody('merchant')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiErrors(...PUBLIC_REGISTRATION_ERRORS)
  registerMerchant(
    @Body() body: RegisterMerchantDto,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.run('REGISTER_MERCHANT', body, headers, reply, { clientIp: request.ip });
  }

  @Post('orchestrator/auth/register/agent')
  @PublicRoute()
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Registers an agent: as an end user, plus the agent record (agent code, optional master agent) and float and commission accounts.',
  })
  @ApiRegistrationBody('agent')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiErrors(...PUBLIC_REGISTRATION_ERRORS, 'AGENT_NOT_FOUND', 'NOT_A_MASTER_AGENT')
  registerAgent(
    @Body() body: RegisterAgentDto,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.run('REGISTER_AGENT', body, headers, reply, { clientIp: request.ip });
  }

  @Post('orchestrator/auth/register/admin')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Registers an administrator (no wallet). Only an authenticated administrator may; the bootstrap administrator is the first.',
    description: STAFF_CREATION_FOUR_EYES.trim(),
  })
  @ApiRegistrationBody('admin')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiStaffPending()
  @ApiErrors(...STAFF_CREATION_ERRORS)
  registerAdmin(
    @Body() body: RegisterAdminDto,
    @Headers() headers: Record<string, string | undefined>,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResult | ApprovalRequestView> {
    return this.createStaffUser('REGISTER_ADMIN', body, headers, reply, user);
  }

  @Post('orchestrator/admin/staff')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Creates a support operator, a compliance/finance officer or an auditor (read-only) (the registration workflow, no wallet). Administrators only.',
    description: `Support operators and auditors decide nothing and are created at once (201).${STAFF_CREATION_FOUR_EYES}`,
  })
  @ApiRegistrationBody('staff')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiStaffPending()
  @ApiErrors(...STAFF_CREATION_ERRORS)
  createStaff(
    @Body() body: CreateStaffDto,
    @Headers() headers: Record<string, string | undefined>,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResult | ApprovalRequestView> {
    const { role, ...rest } = body;
    return this.createStaffUser('REGISTER_STAFF', { ...rest, staffRole: role }, headers, reply, user);
  }

  @Post('orchestrator/auth/reset-pin')
  @PublicRoute()
  @HttpCode(200)
  @ApiOperation({ summary: PIN_RESET_SUMMARY })
  @ApiOkResponse({ type: PinResetView })
  @ApiErrors(...PIN_RESET_ERRORS)
  resetPin(@Body() body: ResetPinDto, @Req() request: FastifyRequest): Promise<PinResetView> {
    return this.pinReset.reset(body.phone, body.otp, body.newPin, request.ip);
  }

  // --- deprecated paths (docs/registration.md "Routes": kept during the migration, then removed) ---

  @Post('auth/register')
  @PublicRoute()
  @DeprecatedRoute('/api/orchestrator/auth/register')
  @HttpCode(201)
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /api/orchestrator/auth/register (same behaviour).' })
  @ApiRegistrationBody('customer')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiErrors(...PUBLIC_REGISTRATION_ERRORS)
  registerDeprecated(
    @Body() body: RegisterDto,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.run('REGISTER_CUSTOMER', body, headers, reply, { clientIp: request.ip });
  }

  @Post('auth/register/merchant')
  @PublicRoute()
  @DeprecatedRoute('/api/orchestrator/auth/register/merchant')
  @HttpCode(201)
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /api/orchestrator/auth/register/merchant (same behaviour).' })
  @ApiRegistrationBody('merchant')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiErrors(...PUBLIC_REGISTRATION_ERRORS)
  registerMerchantDeprecated(
    @Body() body: RegisterMerchantDto,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.run('REGISTER_MERCHANT', body, headers, reply, { clientIp: request.ip });
  }

  @Post('auth/register/agent')
  @PublicRoute()
  @DeprecatedRoute('/api/orchestrator/auth/register/agent')
  @HttpCode(201)
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /api/orchestrator/auth/register/agent (same behaviour).' })
  @ApiRegistrationBody('agent')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiErrors(...PUBLIC_REGISTRATION_ERRORS, 'AGENT_NOT_FOUND', 'NOT_A_MASTER_AGENT')
  registerAgentDeprecated(
    @Body() body: RegisterAgentDto,
    @Headers() headers: Record<string, string | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.run('REGISTER_AGENT', body, headers, reply, { clientIp: request.ip });
  }

  @Post('auth/register/admin')
  @RequirePermission('users.manage')
  @ApiAdminRoute('users.manage')
  @DeprecatedRoute('/api/orchestrator/auth/register/admin')
  @HttpCode(201)
  @ApiOperation({
    deprecated: true,
    summary: 'Deprecated: use POST /api/orchestrator/auth/register/admin (same behaviour, administrator token).',
  })
  @ApiRegistrationBody('admin')
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiCreatedResponse({ type: RegistrationView })
  @ApiStaffPending()
  @ApiErrors(...STAFF_CREATION_ERRORS)
  registerAdminDeprecated(
    @Body() body: RegisterAdminDto,
    @Headers() headers: Record<string, string | undefined>,
    @CurrentUser() user: AuthUser,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RegistrationResult | ApprovalRequestView> {
    return this.createStaffUser('REGISTER_ADMIN', body, headers, reply, user);
  }

  @Post('auth/reset-pin/confirm')
  @PublicRoute()
  @DeprecatedRoute('/api/orchestrator/auth/reset-pin')
  @HttpCode(200)
  @ApiOperation({
    deprecated: true,
    summary: `Deprecated: use POST /api/orchestrator/auth/reset-pin (same behaviour). ${PIN_RESET_SUMMARY}`,
  })
  @ApiOkResponse({ type: PinResetView })
  @ApiErrors(...PIN_RESET_ERRORS)
  resetPinDeprecated(@Body() body: ResetPinDto, @Req() request: FastifyRequest): Promise<PinResetView> {
    return this.pinReset.reset(body.phone, body.otp, body.newPin, request.ip);
  }

  /** An administrator creates staff: at once (201), or a STAFF_CREATE request waiting for a checker (202). */
  private async createStaffUser(
    kind: 'REGISTER_ADMIN' | 'REGISTER_STAFF',
    body: RegisterDto & { staffRole?: CreatedStaffRole },
    headers: Record<string, string | undefined>,
    reply: FastifyReply,
    user: AuthUser,
  ): Promise<RegistrationResult | ApprovalRequestView> {
    const { pin, clientRequestId, ...rest } = body;
    const input = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as unknown as RegistrationInput;
    const outcome = await this.staffCreation.create(
      kind,
      input,
      pin,
      {
        idempotencyKey: idempotencyKeyOf(headers, clientRequestId),
        requestedBy: user.userId,
        faults: this.config.SAGA_FAULT_INJECTION ? parseFaults(headers[FAULT_HEADER]) : [],
      },
      user,
    );
    if (outcome.kind === 'requested') {
      reply.status(202);
      return outcome.request;
    }
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    return outcome.result;
  }

  private async run(
    kind: RegistrationKind,
    body: RegisterDto & Partial<RegisterMerchantDto & RegisterAgentDto> & { staffRole?: CreatedStaffRole },
    headers: Record<string, string | undefined>,
    reply: FastifyReply,
    who: { clientIp: string } | { requestedBy: string },
  ): Promise<RegistrationResult> {
    const { pin, clientRequestId, ...rest } = body;
    // Only the fields given: the request's fingerprint must not depend on absent optional fields.
    const input = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as unknown as RegistrationInput;
    const { result, replayed } = await this.registrations.register(kind, input, pin, {
      idempotencyKey: idempotencyKeyOf(headers, clientRequestId),
      ...who,
      faults: this.config.SAGA_FAULT_INJECTION ? parseFaults(headers[FAULT_HEADER]) : [],
    });
    if (replayed) reply.header('idempotent-replayed', 'true');
    return result;
  }
}

/** The Idempotency-Key header (X-Idempotency-Key accepted) or the body's clientRequestId; both must agree. */
export function idempotencyKeyOf(headers: Record<string, string | undefined>, clientRequestId: string | undefined): string | undefined {
  const header = headers['idempotency-key'] ?? headers['x-idempotency-key'];
  const invalid = (message: string) =>
    new AppException('VALIDATION_ERROR', `Idempotency-Key: ${message}`, {
      errors: [{ field: 'Idempotency-Key', code: 'INVALID_IDEMPOTENCY_KEY', message }],
    });
  if (header !== undefined && !/^[\x21-\x7e]{1,200}$/.test(header)) throw invalid('must be 1 to 200 printable ASCII characters');
  if (header !== undefined && clientRequestId !== undefined && header !== clientRequestId) {
    throw invalid('differs from the body clientRequestId');
  }
  return header ?? clientRequestId;
}
