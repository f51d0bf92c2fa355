import { ApiProperty } from '@nestjs/swagger';
import type { TokenPair } from '../sessions/token-pair';
import type { UserView } from '../users/local-user';
import { UserDocView } from '../users/user.views';

/* OpenAPI shapes of login, refresh and `me`; each class `implements` the type the handler returns. */

export class TokenPairView implements TokenPair {
  @ApiProperty({
    description: 'the access token: an EdDSA-signed JWT',
    example:
      'eyJhbGciOiJFZERTQSIsImtpZCI6IlFneEEzb21PMlk1RWZwVkYiLCJ0eXAiOiJhdCtqd3QifQ.eyJzaWQiOiI5YzhiN2E2ZC01ZTRmLTRhM2ItOGMyZC0xZTBmOWE4YjdjNmQiLCJyb2xlcyI6WyJDVVNUT01FUiJdLCJpc3MiOiJtbS1hdXRoIiwiYXVkIjoibW0tcGxhdGZvcm0iLCJzdWIiOiI1YjBlMWM4ZS0zZjBhLTRjNTUtOWE1Ny0xZjFkM2MwYjllMjEiLCJqdGkiOiIzZTJkMWMwYi05YThmLTRlN2QtOGM2Yi01YTRmM2UyZDFjMGIiLCJpYXQiOjE3OTAwMDAwMDAsImV4cCI6MTc5MDAwMDkwMH0.xxoCgQ0pSXXWZdljrLhzM8VZl7tRLS3bMSJf1UNNAFzwT-pCXSUWtNvZbneuZuOiHsR8BDl0wKc4ckxBSETjAw',
  })
  token: string;

  @ApiProperty({
    example: 'rt1.v2PTjRavhZNsGu2_Ws8d-hSKVoEm1oW83-ebHY0bPY0',
    description: 'single-use refresh token (each refresh answers a new one)',
  })
  refreshToken: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  tokenType: 'Bearer';

  @ApiProperty({ type: 'integer', example: 900, description: 'seconds until the access token expires' })
  expiresIn: number;

  @ApiProperty({ format: 'date-time', example: '2026-09-21T14:28:20.000Z', description: 'when the access token expires' })
  expiresAt: string;
}

export class MeView extends UserDocView implements UserView {
  @ApiProperty({ format: 'uuid', example: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', description: 'the session of the access token' })
  sessionId: string;

  @ApiProperty({ format: 'date-time', example: '2026-09-21T14:28:20.000Z', description: 'when the access token presented expires' })
  tokenExpiresAt: string;
}
