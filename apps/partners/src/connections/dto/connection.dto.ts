import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, Matches, MaxLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { CONNECTION_STATUSES, ConnectionDto, type ConnectionStatus, PARTNER_SCOPES, type PartnerScope } from '@mm/contracts';
import { ListQueryDto } from '../../common/list-query.dto';

/** E.164: `+`, country code and number, 8 to 15 digits, no spaces. */
export const E164 = /^\+[1-9]\d{7,14}$/;

export class RequestConnectionDto {
  @ApiProperty({
    example: '+237690000001',
    pattern: E164.source,
    description: "the merchant's phone, E.164 (field code INVALID_PHONE_FORMAT)",
  })
  @IsString({ context: { code: 'INVALID_PHONE_FORMAT' } })
  @Matches(E164, { message: 'merchantPhone must be in E.164 format (+237690000001)', context: { code: 'INVALID_PHONE_FORMAT' } })
  merchantPhone: string;

  @ApiProperty({
    example: ['orders.write', 'orders.read'],
    isArray: true,
    enum: PARTNER_SCOPES,
    minItems: 1,
    maxItems: 10,
    description:
      'at least one (field code INVALID_SCOPES); each one orders.write or orders.read (field code INVALID_SCOPE); duplicates are ignored',
  })
  // The lowest decorator is checked first and names the field's code when several fail.
  @IsIn(PARTNER_SCOPES, { each: true, message: 'each scope must be orders.write or orders.read', context: { code: 'INVALID_SCOPE' } })
  @ArrayMaxSize(10, { context: { code: 'INVALID_SCOPES' } })
  @ArrayMinSize(1, { message: 'scopes must contain at least one scope', context: { code: 'INVALID_SCOPES' } })
  @IsArray({ context: { code: 'INVALID_SCOPES' } })
  scopes: PartnerScope[];

  @ApiPropertyOptional({
    example: 'Accept mobile-money payments at your Caisse Rapide till',
    maxLength: 500,
    description: 'shown to the merchant',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_REASON' } })
  @MaxLength(500, { context: { code: 'INVALID_REASON' } })
  requestedReason?: string;
}

export class ConnectionRequestResultDto {
  @ApiProperty({ format: 'uuid', example: '7b1f3c1e-55a4-4c1e-9d0e-2f6d0c9b8a11' })
  connectionId: string;

  @ApiProperty({
    enum: CONNECTION_STATUSES,
    example: 'pending',
    description: "pending for a new request; the existing connection's status when alreadyExisted",
  })
  status: ConnectionStatus;

  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z', description: 'end of the pending period (7 days)' })
  expiresAt: string;

  @ApiProperty({
    example: false,
    description: 'true when an open (pending or active) connection to this merchant already existed; it is returned unchanged',
  })
  alreadyExisted: boolean;
}

export class ConnectionPageDto {
  @ApiProperty({ type: [ConnectionDto] })
  data: ConnectionDto[];
  @ApiProperty({ nullable: true, type: String, example: null, description: 'pass as cursor for the next page; null on the last page' })
  nextCursor: string | null;
}

export class ConnectionListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: CONNECTION_STATUSES, example: 'active' })
  @OptionalField()
  @IsIn(CONNECTION_STATUSES, { context: { code: 'INVALID_STATUS' } })
  status?: ConnectionStatus;
}
