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

  @ApiProperty({ example: 'Cv5vqUbITh7fPW89_Sj0Z5zYK0AiCT8zwHrPtz24etY', description: 'the public key, base64url' })
  x: string;

  @ApiProperty({
    example: 'QgxA3omO2Y5EfpVF',
    description:
      "the key id, matched against an access token's `kid` header (by default the first 16 base64url characters of the public key's SHA-256)",
  })
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
