import { Injectable } from '@nestjs/common';
import type { Role } from '../common/roles';
import { requiresSecondFactor } from '../second-factor/staff-roles';
import { AccessTokenService } from './access-token.service';
import { SessionService } from './session.service';
import { type TokenPair, tokenPair } from './token-pair';

/** Opens sessions and rotates them, answering with the token pair. */
@Injectable()
export class TokenIssuer {
  constructor(
    private readonly access: AccessTokenService,
    private readonly sessions: SessionService,
  ) {}

  /**
   * A new session and its first token pair. `userAgent`: the client's User-Agent header, kept with the
   * session (shown to operators). `pinCheckedAt`: when the PIN check that opens it was reserved;
   * undefined (no session) when the PIN was replaced since (SessionService.create).
   */
  async openSession(userId: string, roles: Role[], userAgent?: string, pinCheckedAt?: Date): Promise<TokenPair | undefined> {
    const opened = await this.sessions.create(userId, { staff: requiresSecondFactor(roles), userAgent, pinCheckedAt });
    return opened && this.pair(userId, opened.sessionId, roles, opened.refreshToken);
  }

  /**
   * `bearer`: an access token sent along (even expired); if present, it must belong to the same user.
   * The same refresh token again within the grace window answers the same pair (SessionService.rotate).
   */
  async refresh(refreshToken: string, bearer?: string): Promise<TokenPair> {
    const expectedUserId = bearer ? (await this.access.verify(bearer, { ignoreExpiry: true })).sub : undefined;
    return this.sessions.rotate(refreshToken, expectedUserId, (rotated) =>
      this.pair(rotated.userId, rotated.sessionId, rotated.roles, rotated.refreshToken),
    );
  }

  private async pair(userId: string, sessionId: string, roles: Role[], refreshToken: string): Promise<TokenPair> {
    const { token, expiresAt } = await this.access.issue(userId, sessionId, roles);
    return tokenPair(token, refreshToken, expiresAt);
  }
}
