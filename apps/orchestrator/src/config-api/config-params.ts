import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { AppException, OptionalField } from '@mm/errors';
import { CONFIG_SECTIONS, type ConfigSection } from './config-sections';

function invalid(field: string, code: string, message: string): AppException {
  return new AppException('VALIDATION_ERROR', `${field}: ${message}`, { errors: [{ field, code, message }] });
}

/** `:section` of the configuration routes. */
export function parseSection(value: string): ConfigSection {
  if ((CONFIG_SECTIONS as readonly string[]).includes(value)) return value as ConfigSection;
  throw invalid('section', 'INVALID_SECTION', `must be one of ${CONFIG_SECTIONS.join(', ')}`);
}

/** `:version`: a positive integer written in decimal digits only. */
export function parseVersion(value: string): number {
  const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1) throw invalid('version', 'INVALID_VERSION', 'must be a positive integer');
  return n;
}

/** Query strings are text: only plain decimal digits become a number (no 1e3, 0x10, " 12"). */
export const DigitsToNumber = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value));

export class HistoryQueryDto {
  @ApiProperty({ required: false, description: 'only versions older than this one', example: 5, minimum: 2 })
  @OptionalField()
  @DigitsToNumber()
  @IsInt()
  @Min(2)
  @Max(2_147_483_647)
  before?: number;

  @ApiProperty({ required: false, description: 'page size (default 20)', example: 20, minimum: 1, maximum: 100 })
  @OptionalField()
  @DigitsToNumber()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class DiffQueryDto {
  @ApiProperty({ description: 'the older version', example: 1, minimum: 1 })
  @DigitsToNumber()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  from: number;

  @ApiProperty({ description: 'the newer version', example: 2, minimum: 1 })
  @DigitsToNumber()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  to: number;
}
