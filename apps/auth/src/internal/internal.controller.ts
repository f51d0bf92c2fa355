import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { type OtpProof, OtpService } from '../otp/otp.service';
import { type PinResetResult, PinResetService } from '../pin/pin-reset.service';
import type { UserView } from '../users/local-user';
import { AccountsService } from '../users/accounts.service';
import {
  CreateIdpUserDto,
  CreateLocalUserDto,
  IdParam,
  InternalResetPinDto,
  IntrospectDto,
  PhoneQuery,
  SetRolesDto,
  SetStatusDto,
  VerifyResetPinOtpDto,
} from './internal.dto';
import { type Introspection, IntrospectionService } from './introspection.service';
import { ActiveTokenView, InactiveTokenView } from './introspection.views';
import { IdpUserView } from './internal.views';
import { ResetTokenView } from '../otp/otp.views';
import { PinResetView } from '../pin/pin.views';
import { UserDocView } from '../users/user.views';

/**
 * Internal endpoints (docs/registration.md "Internal routes used"), for the orchestrator's workflows only: service key required, and the
 * gateway answers 404 for `/api/auth/internal/*`. One operation each; every one is idempotent
 * (the same call again answers the same, deleting what is gone succeeds).
 */
@ApiTags('auth (internal)')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR')
@Controller('auth/internal')
@UseGuards(ServiceKeyGuard)
export class InternalController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly otp: OtpService,
    private readonly reset: PinResetService,
    private readonly introspection: IntrospectionService,
  ) {}

  @Post('create-idp-user')
  @ApiErrors('PIN_POLICY_VIOLATION', 'USER_ALREADY_EXISTS')
  @ApiCreatedResponse({
    type: IdpUserView,
    description: 'the identity-provider user (also when it already existed with this phone and PIN: `created: false`)',
  })
  @HttpCode(201)
  async createIdpUser(@Body() body: CreateIdpUserDto): Promise<{ idpUserId: string; phone: string; created: boolean }> {
    return this.accounts.createIdpUser(body.phone, body.pin, body.idpUserId);
  }

  @Post('create-local-user')
  @ApiErrors('PIN_POLICY_VIOLATION', 'USER_ALREADY_EXISTS', 'USER_NOT_FOUND')
  @ApiCreatedResponse({ type: UserDocView, description: 'the local user (also when the same call already created it)' })
  @HttpCode(201)
  async createLocalUser(@Body() body: CreateLocalUserDto): Promise<UserView> {
    return (await this.accounts.createLocalUser(body)).user;
  }

  @Delete('idp-user/:id')
  @HttpCode(204)
  async deleteIdpUser(@Param() params: IdParam): Promise<void> {
    await this.accounts.deleteIdpUser(params.id);
  }

  @Delete('local-user/:id')
  @HttpCode(204)
  async deleteLocalUser(@Param() params: IdParam): Promise<void> {
    await this.accounts.deleteLocalUser(params.id);
  }

  /** Step 2 of the PIN reset (find the user by phone); also how a workflow learns a phone is taken. */
  @Get('users/by-phone')
  @ApiErrors('USER_NOT_FOUND')
  @ApiOkResponse({ type: UserDocView })
  userByPhone(@Query() query: PhoneQuery): Promise<UserView> {
    return this.accounts.findByPhone(query.phone);
  }

  /** Freeze (DISABLED: every session ends, login refused) and unfreeze. Idempotent. */
  @Put('users/:id/status')
  @ApiErrors('USER_NOT_FOUND')
  @ApiOkResponse({ type: UserDocView, description: 'the user with its new status' })
  setStatus(@Param() params: IdParam, @Body() body: SetStatusDto): Promise<UserView> {
    return this.accounts.setStatus(params.id, body.status);
  }

  /** Role change by an administrator (through the orchestrator); the user's sessions end. Idempotent. */
  @Put('users/:id/roles')
  @ApiErrors('USER_NOT_FOUND')
  @ApiOkResponse({ type: UserDocView, description: 'the user with its new roles' })
  setRoles(@Param() params: IdParam, @Body() body: SetRolesDto): Promise<UserView> {
    return this.accounts.setRoles(params.id, body.roles);
  }

  @Post('verify-reset-pin-otp')
  @ApiErrors('OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXHAUSTED')
  @ApiOkResponse({ type: ResetTokenView, description: 'the proof, also as `resetToken`; the same code again answers the same proof' })
  @HttpCode(200)
  async verifyResetPinOtp(@Body() body: VerifyResetPinOtpDto): Promise<OtpProof & { resetToken: string }> {
    const proof = await this.otp.verifyIdempotent(body.phone, 'PIN_RESET', body.otp);
    return { ...proof, resetToken: proof.proof };
  }

  @Post('reset-pin')
  @ApiErrors('RESET_TOKEN_INVALID', 'PIN_POLICY_VIOLATION', 'USER_NOT_FOUND')
  @ApiOkResponse({ type: PinResetView, description: 'the PIN is reset, locks lifted, sessions ended' })
  @HttpCode(200)
  resetPin(@Body() body: InternalResetPinDto): Promise<PinResetResult> {
    return this.reset.reset(body.phone, body.resetToken, body.newPin);
  }

  /** Is this access token good right now (signature, expiry, session not revoked)? */
  @Post('introspect')
  @HttpCode(200)
  @ApiExtraModels(ActiveTokenView, InactiveTokenView)
  @ApiOkResponse({
    description: 'always 200 for a well-formed request: `active` says whether the token is good now, and if not, why',
    schema: { oneOf: [{ $ref: getSchemaPath(ActiveTokenView) }, { $ref: getSchemaPath(InactiveTokenView) }] },
  })
  introspect(@Body() body: IntrospectDto): Promise<Introspection> {
    return this.introspection.introspect(body.token);
  }
}
