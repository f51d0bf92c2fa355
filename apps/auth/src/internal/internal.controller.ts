import { Body, Controller, Delete, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ServiceKeyGuard } from '@mm/platform';
import { type OtpProof, OtpService } from '../otp/otp.service';
import { type PinResetResult, PinResetService } from '../pin/pin-reset.service';
import type { UserView } from '../users/local-user';
import { AccountsService } from '../users/accounts.service';
import { CreateIdpUserDto, CreateLocalUserDto, IdParam, InternalResetPinDto, IntrospectDto, VerifyResetPinOtpDto } from './internal.dto';
import { type Introspection, IntrospectionService } from './introspection.service';

/**
 * Spec 3 internal endpoints, for the orchestrator's workflows only: service key required, and the
 * gateway answers 404 for `/api/auth/internal/*`. One operation each; every one is idempotent
 * (the same call again answers the same, deleting what is gone succeeds).
 */
@ApiTags('auth (internal)')
@ApiSecurity('serviceKey')
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
  @HttpCode(201)
  async createIdpUser(@Body() body: CreateIdpUserDto): Promise<{ idpUserId: string; phone: string }> {
    const { idpUserId, phone } = await this.accounts.createIdpUser(body.phone, body.pin);
    return { idpUserId, phone };
  }

  @Post('create-local-user')
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

  @Post('verify-reset-pin-otp')
  @HttpCode(200)
  async verifyResetPinOtp(@Body() body: VerifyResetPinOtpDto): Promise<OtpProof & { resetToken: string }> {
    const proof = await this.otp.verifyIdempotent(body.phone, 'PIN_RESET', body.otp);
    return { ...proof, resetToken: proof.proof };
  }

  @Post('reset-pin')
  @HttpCode(200)
  resetPin(@Body() body: InternalResetPinDto): Promise<PinResetResult> {
    return this.reset.reset(body.phone, body.resetToken, body.newPin);
  }

  /** Is this access token good right now (signature, expiry, session not revoked)? */
  @Post('introspect')
  @HttpCode(200)
  introspect(@Body() body: IntrospectDto): Promise<Introspection> {
    return this.introspection.introspect(body.token);
  }
}
