import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  type SecondFactorReset,
  SecondFactorResetDoc,
  type SessionsRevoked,
  SessionsRevokedDoc,
  UserSecurityDoc,
  type UserSecurityView,
} from '@mm/contracts';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UserSecurityService } from '../second-factor/user-security.service';
import { IdParam, RevokeAllSessionsDto } from './internal.dto';

/**
 * A user's sign-in security, for the orchestrator's operator routes (docs/roles.md "People in the back office"): the person 360 view
 * reads it, "end all sessions" and the second-factor reset (after its maker-checker approval) act
 * on it. Service key required; the gateway answers 404 for `/api/auth/internal/*`.
 */
@ApiTags('auth (internal)')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS', 'VALIDATION_ERROR', 'USER_NOT_FOUND')
@Controller('auth/internal/users')
@UseGuards(ServiceKeyGuard)
export class UserSecurityController {
  constructor(private readonly security: UserSecurityService) {}

  @Get(':id/security')
  @ApiOperation({ summary: 'Live and recently ended sessions, lockouts in force, second-factor state.' })
  @ApiOkResponse({ type: UserSecurityDoc })
  view(@Param() params: IdParam): Promise<UserSecurityView> {
    return this.security.view(params.id);
  }

  @Post(':id/sessions/revoke-all')
  @ApiOperation({ summary: "Ends every session of the user (reason REVOKED_BY_OPERATOR, the operator's words kept as the note)." })
  @ApiOkResponse({ type: SessionsRevokedDoc, description: 'how many sessions ended (0 again on a repeat)' })
  @HttpCode(200)
  async revokeAll(@Param() params: IdParam, @Body() body: RevokeAllSessionsDto): Promise<SessionsRevoked> {
    return { revoked: await this.security.revokeAll(params.id, body.reason.trim()) };
  }

  @Post(':id/second-factor/reset')
  @ApiOperation({ summary: 'Removes the TOTP enrolment (the user enrols again at the next sign-in) and ends every session.' })
  @ApiOkResponse({ type: SecondFactorResetDoc })
  @HttpCode(200)
  resetSecondFactor(@Param() params: IdParam): Promise<SecondFactorReset> {
    return this.security.resetSecondFactor(params.id);
  }
}
