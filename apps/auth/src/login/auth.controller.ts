import { Body, Controller, Get, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiBearerAuth, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { type SecondFactorChallenge, SecondFactorChallengeDoc, type SessionsRevoked, SessionsRevokedDoc } from '@mm/contracts';
import { ApiErrors } from '@mm/platform';
import { AppException } from '@mm/errors';
import { AccessTokenGuard, type AuthContext, CurrentAuth, bearerToken } from '../sessions/access-token.guard';
import { SessionService } from '../sessions/session.service';
import { TokenIssuer } from '../sessions/token-issuer.service';
import type { TokenPair } from '../sessions/token-pair';
import { type UserView, toUserView } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import { RateLimit } from '../rate-limit/rate-limit.guard';
import { SecondFactorService } from '../second-factor/second-factor.service';
import { LoginDto, RefreshDto, SecondFactorDto } from './login.dto';
import { MeView, TokenPairView } from './login.views';
import { LoginService } from './login.service';

/** The client's User-Agent header (kept with the session it opens, for the operators' view). */
function userAgentOf(request: FastifyRequest): string | undefined {
  const value = request.headers['user-agent'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** docs/mobile-api.md "Accounts and tokens": login (with the staff second step), current user, refresh, logout, logout everywhere. */
@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly login: LoginService,
    private readonly issuer: TokenIssuer,
    private readonly sessions: SessionService,
    private readonly users: LocalUserStore,
    private readonly secondFactor: SecondFactorService,
  ) {}

  @Post(['login', 'login/phone-pin'])
  @ApiErrors(
    'VALIDATION_ERROR',
    'INVALID_CREDENTIALS',
    'ACCOUNT_DISABLED',
    'ACCOUNT_LOCKED',
    'ACCOUNT_HARD_LOCKED',
    'PIN_CHECK_IN_PROGRESS',
    'RATE_LIMITED',
    'OTP_THROTTLED',
    'SERVICE_UNAVAILABLE',
  )
  @ApiOperation({
    summary:
      'Phone + PIN login: access token (EdDSA JWT, ≤ 15 min) and a single-use refresh token. Staff (SUPPORT, COMPLIANCE, ADMIN, AUDITOR) get a second-factor challenge instead: TOTP_REQUIRED, or TOTP_ENROLMENT_REQUIRED with a new secret, and then a 6-digit code is sent by SMS to the staff phone (429 OTP_THROTTLED beyond the hourly SMS cap of the phone); then POST /auth/login/second-factor. 401 INVALID_CREDENTIALS for unknown phone or wrong PIN alike; 423 ACCOUNT_LOCKED (Retry-After) / ACCOUNT_HARD_LOCKED; 429 PIN_CHECK_IN_PROGRESS (Retry-After) while PIN checks in flight on the account use every attempt left before the lock; 429 RATE_LIMITED (Retry-After) beyond 10 attempts a minute per phone or 30 per client address (defaults).',
  })
  @ApiExtraModels(TokenPairView, SecondFactorChallengeDoc)
  @ApiOkResponse({
    description: 'signed in (the access token and its refresh token), or, for staff, the second step to take',
    schema: { oneOf: [{ $ref: getSchemaPath(TokenPairView) }, { $ref: getSchemaPath(SecondFactorChallengeDoc) }] },
  })
  @RateLimit('LOGIN')
  @HttpCode(200)
  loginWithPin(@Body() body: LoginDto, @Req() request: FastifyRequest): Promise<TokenPair | SecondFactorChallenge> {
    return this.login.login(body.phone, body.pin, userAgentOf(request));
  }

  /** A staff login's second step: the challenge and the authenticator's code open the session. */
  @Post('login/second-factor')
  @ApiErrors(
    'VALIDATION_ERROR',
    'SECOND_FACTOR_INVALID',
    'SECOND_FACTOR_CODE_USED',
    'SECOND_FACTOR_CHALLENGE_INVALID',
    'SECOND_FACTOR_SMS_CODE_INVALID',
    'SECOND_FACTOR_SMS_CODE_EXPIRED',
    'ACCOUNT_DISABLED',
    'ACCOUNT_LOCKED',
    'ACCOUNT_HARD_LOCKED',
    'PIN_CHECK_IN_PROGRESS',
    'SERVICE_UNAVAILABLE',
    'RATE_LIMITED',
  )
  @ApiOperation({
    summary:
      "A staff login's second step: the challengeToken of POST /auth/login and the 6-digit TOTP code (RFC 6238; the step before or after is accepted, each step once). On an enrolment challenge, the first valid code together with `smsCode`, the code sent by SMS to the staff phone, stores the enrolment (400 VALIDATION_ERROR without it; 401 SECOND_FACTOR_SMS_CODE_INVALID when wrong, SECOND_FACTOR_SMS_CODE_EXPIRED when expired or spent). Wrong codes, TOTP or SMS, count toward the account lock like wrong PINs; the challenge lasts 5 minutes (default) and opens one session.",
  })
  @ApiOkResponse({ type: TokenPairView, description: 'signed in: the access token (staff: 5 min by default) and its refresh token' })
  @RateLimit('LOGIN')
  @HttpCode(200)
  completeSecondFactor(@Body() body: SecondFactorDto, @Req() request: FastifyRequest): Promise<TokenPair> {
    return this.secondFactor.complete(body.challengeToken, body.code, body.smsCode, userAgentOf(request));
  }

  @Get('me')
  @ApiErrors('TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Validates the access token against its session (revocation is immediate) and returns the user.' })
  @ApiOkResponse({ type: MeView, description: 'the user, with the session and expiry of the access token presented' })
  @UseGuards(AccessTokenGuard)
  async me(@CurrentAuth() auth: AuthContext): Promise<UserView & { sessionId: string; tokenExpiresAt: string }> {
    const user = await this.users.findById(auth.userId);
    if (!user) throw new AppException('TOKEN_REVOKED');
    return { ...toUserView(user), sessionId: auth.sessionId, tokenExpiresAt: new Date(auth.exp * 1000).toISOString() };
  }

  /** Rotates the refresh token. An access token sent along (even expired) must be the same user's. */
  @Post('refresh')
  @ApiErrors('VALIDATION_ERROR', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'REFRESH_TOKEN_REUSED')
  @ApiOperation({
    summary:
      'Rotates the refresh token. The same token again within REFRESH_GRACE_SEC (10 s) of its use, while its successor is unused, answers the same pair (a retry after a lost answer); any other reuse: 401 REFRESH_TOKEN_REUSED and the session is revoked.',
  })
  @ApiOkResponse({ type: TokenPairView, description: 'a new access token and a new refresh token (the one sent is used up)' })
  @HttpCode(200)
  refresh(@Body() body: RefreshDto, @Req() request: FastifyRequest): Promise<TokenPair> {
    return this.issuer.refresh(body.refreshToken, bearerToken(request));
  }

  /** Ends the session of the access token: its access tokens stop working at once. */
  @Post('logout')
  @ApiErrors('TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Ends the session: its access and refresh tokens stop working at once.' })
  @ApiNoContentResponse({ description: 'the session is ended' })
  @HttpCode(204)
  @UseGuards(AccessTokenGuard)
  async logout(@CurrentAuth() auth: AuthContext): Promise<void> {
    await this.sessions.revoke(auth.sessionId, 'LOGOUT');
  }

  /** Ends every session of the caller, this one included. */
  @Post('logout-all')
  @ApiErrors('TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Signs out everywhere: every session of the caller ends (this one too), their tokens stop working at once.' })
  @ApiOkResponse({ type: SessionsRevokedDoc, description: 'how many sessions ended' })
  @HttpCode(200)
  @UseGuards(AccessTokenGuard)
  async logoutAll(@CurrentAuth() auth: AuthContext): Promise<SessionsRevoked> {
    return { revoked: (await this.sessions.revokeAllForUser(auth.userId, 'LOGOUT_ALL')).length };
  }
}
