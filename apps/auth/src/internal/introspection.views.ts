import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES, type AppRole } from '@mm/contracts';
import type { Introspection } from './introspection.service';

/*
 * OpenAPI shapes of `POST /auth/internal/introspect` (RFC 7662 style): one of two answers, told
 * apart by `active`. The classes `implement` the two branches of the service's type, so a field
 * added there without its documentation fails to compile.
 */

type Active = Extract<Introspection, { active: true }>;
type Inactive = Extract<Introspection, { active: false }>;

/** Why a token is not good now: the error code a request carrying it would get. */
export const INACTIVE_REASONS = ['TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'ACCOUNT_DISABLED'] as const;

export class ActiveTokenView implements Active {
  @ApiProperty({ enum: [true], example: true })
  active: true;

  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the user id' })
  sub: string;

  @ApiProperty({ format: 'uuid', example: '9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', description: 'the session the token belongs to' })
  sid: string;

  @ApiProperty({ example: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b', description: "the token's id" })
  jti: string;

  @ApiProperty({ isArray: true, enum: APP_ROLES, example: ['CUSTOMER'], description: "the user's roles now (not as signed in the token)" })
  roles: AppRole[];

  @ApiProperty({ example: 1_795_000_000, description: 'expiry, seconds since the Unix epoch' })
  exp: number;
}

export class InactiveTokenView implements Inactive {
  @ApiProperty({ enum: [false], example: false })
  active: false;

  @ApiProperty({ enum: INACTIVE_REASONS, example: 'TOKEN_EXPIRED' })
  reason: string;
}
