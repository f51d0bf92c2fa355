import { ApiProperty } from '@nestjs/swagger';
import {
  CONNECTION_STATUSES,
  type ConnectionStatus,
  type MerchantConnectionView,
  PARTNER_SCOPES,
  type Page,
  type PartnerScope,
  type RevokedBy,
} from '@mm/contracts';

/*
 * OpenAPI shapes of what the internal merchant-side connection routes answer. The classes
 * `implement` the contract types the service returns, so a field added to the contract without its
 * documentation fails to compile.
 */

export class MerchantConnectionViewDto implements MerchantConnectionView {
  @ApiProperty({ format: 'uuid', example: '7b1f3c1e-55a4-4c1e-9d0e-2f6d0c9b8a11' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '0d8e9f1a-2b3c-4d5e-8f70-8192a3b4c5d6' })
  integrationId: string;

  @ApiProperty({ example: 'Caisse Rapide POS', description: 'who asks' })
  integrationName: string;

  @ApiProperty({ format: 'uuid', example: '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c' })
  merchantId: string;

  @ApiProperty({ enum: CONNECTION_STATUSES, example: 'pending' })
  status: ConnectionStatus;

  @ApiProperty({ isArray: true, enum: PARTNER_SCOPES, example: ['orders.write'] })
  scopes: PartnerScope[];

  @ApiProperty({
    type: [String],
    example: ['Create payment orders (QR codes) in your name'],
    description: "the scopes in words, in the same order, for the merchant's screen",
  })
  scopeDescriptions: string[];

  @ApiProperty({ type: String, nullable: true, example: 'Accept mobile-money payments at your till' })
  requestedReason: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z', description: 'a pending request expires then' })
  pendingExpiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  activatedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null })
  revokedAt: string | null;

  @ApiProperty({ enum: ['merchant', 'integration', 'admin', 'system'], nullable: true, example: null })
  revokedBy: RevokedBy | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' })
  updatedAt: string;
}

export class MerchantConnectionPageDto implements Page<MerchantConnectionView> {
  @ApiProperty({ type: [MerchantConnectionViewDto], description: 'newest first' })
  data: MerchantConnectionViewDto[];

  @ApiProperty({ type: String, nullable: true, example: null, description: 'pass as cursor for the next page; null on the last page' })
  nextCursor: string | null;
}
