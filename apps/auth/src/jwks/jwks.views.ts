import { ApiProperty } from '@nestjs/swagger';
import type { JSONWebKeySet, JWK } from 'jose';

/*
 * OpenAPI shape of `GET /auth/.well-known/jwks.json` (RFC 7517): the Ed25519 public keys, as
 * `AccessTokenService.jwks` exports them. The classes `implement` jose's types.
 */

export class JwkView implements JWK {
  @ApiProperty({ enum: ['OKP'], example: 'OKP' })
  kty: 'OKP';

  @ApiProperty({ enum: ['Ed25519'], example: 'Ed25519' })
  crv: string;

  @ApiProperty({ description: 'the public key, base64url' })
  x: string;

  @ApiProperty({ description: "the key id, matched against an access token's `kid` header" })
  kid: string;

  @ApiProperty({ enum: ['EdDSA'], example: 'EdDSA' })
  alg: 'EdDSA';

  @ApiProperty({ enum: ['sig'], example: 'sig' })
  use: 'sig';
}

export class JwksView implements JSONWebKeySet {
  @ApiProperty({ type: [JwkView], description: 'the signing key first, then the next and previous keys when configured' })
  keys: JwkView[];
}
