import { Body, Controller, Get, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '@mm/errors';
import { AccessTokenGuard, type AuthContext, CurrentAuth, bearerToken } from '../sessions/access-token.guard';
import { SessionService } from '../sessions/session.service';
import { TokenIssuer } from '../sessions/token-issuer.service';
import type { TokenPair } from '../sessions/token-pair';
import { type UserView, toUserView } from '../users/local-user';
import { LocalUserStore } from '../users/local-user.store';
import { LoginDto, RefreshDto } from './login.dto';
import { LoginService } from './login.service';

/** Spec 3: login, current user, refresh, logout. */
@Controller('auth')
export class AuthController {
  constructor(
    private readonly login: LoginService,
    private readonly issuer: TokenIssuer,
    private readonly sessions: SessionService,
    private readonly users: LocalUserStore,
  ) {}

  @Post(['login', 'login/phone-pin'])
  @HttpCode(200)
  loginWithPin(@Body() body: LoginDto): Promise<TokenPair> {
    return this.login.login(body.phone, body.pin);
  }

  @Get('me')
  @UseGuards(AccessTokenGuard)
  async me(@CurrentAuth() auth: AuthContext): Promise<UserView & { sessionId: string; tokenExpiresAt: string }> {
    const user = await this.users.findById(auth.userId);
    if (!user) throw new AppException('TOKEN_REVOKED');
    return { ...toUserView(user), sessionId: auth.sessionId, tokenExpiresAt: new Date(auth.exp * 1000).toISOString() };
  }

  /** Rotates the refresh token. An access token sent along (even expired) must be the same user's. */
  @Post('refresh')
  @HttpCode(200)
  refresh(@Body() body: RefreshDto, @Req() request: FastifyRequest): Promise<TokenPair> {
    return this.issuer.refresh(body.refreshToken, bearerToken(request));
  }

  /** Ends the session of the access token: its access tokens stop working at once. */
  @Post('logout')
  @HttpCode(204)
  @UseGuards(AccessTokenGuard)
  async logout(@CurrentAuth() auth: AuthContext): Promise<void> {
    await this.sessions.revoke(auth.sessionId, 'LOGOUT');
  }
}
