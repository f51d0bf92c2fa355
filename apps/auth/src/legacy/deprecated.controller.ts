import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppException } from '@mm/errors';
import type { Role } from '../common/roles';
import { OtpService } from '../otp/otp.service';
import { type PinResetResult, PinResetService } from '../pin/pin-reset.service';
import { AccessTokenGuard, type AuthContext, CurrentAuth } from '../sessions/access-token.guard';
import { AccountsService } from '../users/accounts.service';
import type { UserView } from '../users/local-user';
import { DeprecationHeaders } from './deprecation-headers.guard';
import { LegacyRegisterDto, LegacyResetPinConfirmDto } from './legacy.dto';

/**
 * Deprecated (spec 3): these moved to the orchestrator, which owns the multi-service workflows;
 * through the gateway `/api/auth/register*` and `/api/auth/reset-pin/confirm` already reach it.
 * Kept on the auth service for direct callers as thin adapters onto the single steps: they create
 * only the auth side (no customer, no wallet). Removed after the migration.
 */
@ApiTags('auth (deprecated)')
@Controller('auth')
@UseGuards(DeprecationHeaders)
export class DeprecatedController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly otp: OtpService,
    private readonly reset: PinResetService,
  ) {}

  @Post('register')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /orchestrator/auth/register (creates only the auth side here)' })
  @HttpCode(201)
  register(@Body() body: LegacyRegisterDto): Promise<UserView> {
    return this.registerAs(body, 'CUSTOMER');
  }

  @Post('register/merchant')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /orchestrator/auth/register/merchant' })
  @HttpCode(201)
  registerMerchant(@Body() body: LegacyRegisterDto): Promise<UserView> {
    return this.registerAs(body, 'MERCHANT');
  }

  @Post('register/agent')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /orchestrator/auth/register/agent' })
  @HttpCode(201)
  registerAgent(@Body() body: LegacyRegisterDto): Promise<UserView> {
    return this.registerAs(body, 'AGENT');
  }

  /** Only an administrator may create another one. */
  @Post('register/admin')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /orchestrator/auth/register/admin (administrator token required)' })
  @ApiBearerAuth()
  @HttpCode(201)
  @UseGuards(AccessTokenGuard)
  registerAdmin(@CurrentAuth() auth: AuthContext, @Body() body: LegacyRegisterDto): Promise<UserView> {
    if (!auth.roles.includes('ADMIN')) throw new AppException('FORBIDDEN', 'Only an administrator can register an administrator');
    return this.registerAs(body, 'ADMIN');
  }

  @Post('reset-pin/confirm')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use POST /orchestrator/auth/reset-pin' })
  @HttpCode(200)
  async confirmReset(@Body() body: LegacyResetPinConfirmDto): Promise<PinResetResult> {
    const proof = await this.otp.verify(body.phone, 'PIN_RESET', body.otp);
    return this.reset.reset(body.phone, proof.proof, body.newPin);
  }

  private registerAs(body: LegacyRegisterDto, role: Role): Promise<UserView> {
    return this.accounts.register(body.phone, body.pin, [role]);
  }
}
