import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { DigitsToNumber } from '../../config-api/config-params';
import { BLOCKLISTS, type Blocklist } from '../blocklist.service';

const E164 = /^\+[1-9][0-9]{7,14}$/;

export class AddBlocklistEntryDto {
  @ApiProperty({ description: 'E.164 phone number', example: '+237690000099', pattern: E164.source })
  @IsString()
  @Matches(E164, { context: { code: 'INVALID_PHONE_FORMAT' } })
  phone: string;

  @ApiProperty({
    enum: BLOCKLISTS,
    description: 'SANCTIONS (official lists), FRAUD (confirmed fraud), INTERNAL (other decisions)',
    example: 'SANCTIONS',
  })
  @IsIn(BLOCKLISTS)
  list: Blocklist;

  @ApiProperty({
    description: 'why (case reference, list name and date)',
    example: 'UN consolidated list, entry 1234, 2026-11-02',
    minLength: 3,
    maxLength: 500,
  })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

export class RemoveBlocklistEntryQueryDto {
  @ApiProperty({ description: 'why the entry is lifted (kept with it)', example: 'Delisted on 2026-12-01', minLength: 3, maxLength: 500 })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

export class BlocklistQueryDto {
  @ApiProperty({ required: false, description: 'only entries for this E.164 phone', example: '+237690000099' })
  @OptionalField()
  @IsString()
  @Matches(E164, { context: { code: 'INVALID_PHONE_FORMAT' } })
  phone?: string;

  @ApiProperty({ required: false, description: 'include lifted entries (history)', example: false, default: false })
  @OptionalField()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  includeRemoved?: boolean;

  @ApiProperty({ required: false, example: 50, minimum: 1, maximum: 200, default: 50 })
  @OptionalField()
  @DigitsToNumber()
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiProperty({ required: false, example: 0, minimum: 0, maximum: 100000, default: 0 })
  @OptionalField()
  @DigitsToNumber()
  @IsInt()
  @Min(0)
  @Max(100_000)
  offset?: number;
}

export class BlocklistEntryView {
  @ApiProperty({ format: 'uuid', example: '0f8e4a52-8d0c-4f5e-9a31-2c7b6d5e4f10' })
  id: string;

  @ApiProperty({ example: '+237690000099' })
  phone: string;

  @ApiProperty({ enum: BLOCKLISTS, example: 'SANCTIONS' })
  list: Blocklist;

  @ApiProperty({ example: 'UN consolidated list, entry 1234, 2026-11-02' })
  reason: string;

  @ApiProperty({ description: 'user id of who added it', example: '3f1c9a4e-2b7d-4c1e-9f0a-6d5e4c3b2a19' })
  addedBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-02T09:15:00.000Z' })
  addedAt: string;

  @ApiProperty({ nullable: true, type: String, example: null })
  removedBy: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'date-time', example: null })
  removedAt: string | null;

  @ApiProperty({ nullable: true, type: String, example: null })
  removalReason: string | null;
}

export class BlocklistPageView {
  @ApiProperty({ type: [BlocklistEntryView] })
  entries: BlocklistEntryView[];
}
