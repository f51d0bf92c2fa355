import { ApiProperty } from '@nestjs/swagger';
import type { TokenPair } from '../sessions/token-pair';
import type { UserView } from '../users/local-user';
import { UserDocView } from '../users/user.views';

/* OpenAPI shapes of login, refresh and `me`; each class `implements` the type the handler returns. */

export class TokenPairView implements TokenPair {
  @ApiProperty({ description: 'the access token: an EdDSA-signed JWT' })
  token: string;

  @ApiProperty({ description: 'single-use refresh token (each refresh answers a new one)' })
  refreshToken: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  tokenType: 'Bearer';

  @ApiProperty({ type: 'integer', example: 900, description: 'seconds until the access token expires' })
  expiresIn: number;

  @ApiProperty({ format: 'date-time', description: 'when the access token expires' })
  expiresAt: string;
}

export class MeView extends UserDocView implements UserView {
  @ApiProperty({ format: 'uuid', description: 'the session of the access token' })
  sessionId: string;

  @ApiProperty({ format: 'date-time', description: 'when the access token presented expires' })
  tokenExpiresAt: string;
}
