import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import type { FieldError } from '@mm/errors';
import { CURRENCIES, type Currency, IsMoney, OPERATION_TYPES, type OperationType } from '../common/operation-type';

/**
 * One amount band of a grid: for an amount in [from, to] the charge is `fixed + rateBps/10 000 of
 * the amount`. Bands of a grid start at 1, follow each other without gap or overlap, and the last
 * one is open-ended (`to: null`), so every amount has exactly one band.
 */
export class GridBandDto {
  @ApiProperty({ description: 'first amount of the band (inclusive), smallest currency unit', example: 5001, minimum: 1 })
  @IsMoney(1)
  from: number;

  @ApiProperty({
    description: 'last amount of the band (inclusive); null on the last band (no upper bound)',
    example: 50000,
    nullable: true,
    type: Number,
    minimum: 1,
  })
  @ValidateIf((band: GridBandDto) => band.to !== null)
  @IsMoney(1)
  to: number | null;

  @ApiProperty({ description: 'fixed part, smallest currency unit', example: 0, minimum: 0 })
  @IsMoney(0)
  fixed: number;

  @ApiProperty({ description: 'proportional part in basis points (100 = 1 %)', example: 100, minimum: 0, maximum: 10000 })
  @IsInt({ context: { code: 'INVALID_RATE' } })
  @Min(0, { context: { code: 'INVALID_RATE' } })
  @Max(10_000, { context: { code: 'INVALID_RATE' } })
  rateBps: number;
}

/** The bands of one operation type in one currency. */
export class GridDto {
  @ApiProperty({ enum: OPERATION_TYPES, example: 'TRANSFER' })
  @IsIn(OPERATION_TYPES)
  type: OperationType;

  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  @IsIn(CURRENCIES)
  currency: Currency;

  @ApiProperty({ type: [GridBandDto], minItems: 1, maxItems: 50 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => GridBandDto)
  bands: GridBandDto[];
}

/** Section `pricing`: fees charged to the payer and commissions paid to agents (from TREASURY). */
export class PricingDocumentDto {
  @ApiProperty({
    description: 'how long a quote given at intent creation is honoured at confirm (seconds); should exceed the intent lifetime',
    example: 900,
    minimum: 60,
    maximum: 86400,
  })
  @IsInt()
  @Min(60)
  @Max(86_400)
  quoteValiditySeconds: number;

  @ApiProperty({ type: [GridDto], description: 'one grid per operation type and currency, all of them (a free type has one band 0 + 0)' })
  @IsArray()
  @ArrayMaxSize(OPERATION_TYPES.length * CURRENCIES.length)
  @ValidateNested({ each: true })
  @Type(() => GridDto)
  fees: GridDto[];

  @ApiProperty({ type: [GridDto], description: 'agent commission grids; a type and currency without a grid pays no commission' })
  @IsArray()
  @ArrayMaxSize(OPERATION_TYPES.length * CURRENCIES.length)
  @ValidateNested({ each: true })
  @Type(() => GridDto)
  commissions: GridDto[];
}

export type GridBand = Pick<GridBandDto, 'from' | 'to' | 'fixed' | 'rateBps'>;
export interface Grid {
  type: OperationType;
  currency: Currency;
  bands: GridBand[];
}
export interface PricingDocument {
  quoteValiditySeconds: number;
  fees: Grid[];
  commissions: Grid[];
}

/**
 * The rules class-validator cannot express: complete, unique, contiguous, open-ended grids. (What a
 * commission may pay depends on the amounts the limits allow: `commissionBoundsErrors`, checked when
 * a version is stored.)
 */
export function pricingDocumentErrors(doc: PricingDocument): FieldError[] {
  return [...gridsErrors(doc.fees, 'fees', true), ...gridsErrors(doc.commissions, 'commissions', false)];
}

function gridsErrors(grids: Grid[], field: string, everyPair: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  grids.forEach((grid, i) => {
    const key = `${grid.type}/${grid.currency}`;
    if (seen.has(key)) errors.push({ field: `${field}[${i}]`, code: 'GRID_DUPLICATE', message: `a second grid for ${key}` });
    seen.add(key);
    errors.push(...bandsErrors(grid.bands, `${field}[${i}].bands`));
  });
  if (everyPair) {
    for (const type of OPERATION_TYPES) {
      for (const currency of CURRENCIES) {
        if (!seen.has(`${type}/${currency}`)) {
          errors.push({ field, code: 'GRID_MISSING', message: `no grid for ${type}/${currency}` });
        }
      }
    }
  }
  return errors;
}

/** Exported for the unit spec: band ranges must tile [1, ∞) in order. */
export function bandsErrors(bands: GridBand[], field: string): FieldError[] {
  const errors: FieldError[] = [];
  bands.forEach((band, k) => {
    const at = `${field}[${k}]`;
    if (band.to !== null && band.to < band.from) {
      errors.push({ field: `${at}.to`, code: 'BAND_RANGE_INVALID', message: 'to must be at least from' });
    }
    const expectedFrom = k === 0 ? 1 : (bands[k - 1].to ?? Number.NaN) + 1;
    if (band.from !== expectedFrom) {
      errors.push({
        field: `${at}.from`,
        code: 'BANDS_NOT_CONTIGUOUS',
        message:
          k === 0 ? 'the first band must start at 1' : 'a band must start right after the previous one ends (only the last band is open)',
      });
    }
  });
  const last = bands[bands.length - 1];
  if (last && last.to !== null) {
    errors.push({
      field: `${field}[${bands.length - 1}].to`,
      code: 'BANDS_NOT_OPEN_ENDED',
      message: 'the last band must be open (to: null)',
    });
  }
  return errors;
}
