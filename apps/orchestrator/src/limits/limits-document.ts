import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import type { FieldError } from '@mm/errors';
import { CURRENCIES, type Currency, IsMoney, OPERATION_TYPES, type OperationType } from '../common/operation-type';

/** Smallest and largest amount of one operation type in one currency. */
export class AmountBoundsDto {
  @ApiProperty({ enum: OPERATION_TYPES, example: 'CASH_OUT' })
  @IsIn(OPERATION_TYPES)
  type: OperationType;

  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  @IsIn(CURRENCIES)
  currency: Currency;

  @ApiProperty({ description: 'smallest amount accepted', example: 500, minimum: 1 })
  @IsMoney(1)
  min: number;

  @ApiProperty({ description: 'largest amount accepted', example: 1000000, minimum: 1 })
  @IsMoney(1)
  max: number;
}

/** Limits of customers of one KYC tier in one currency. Tiers are listed from the least to the most verified. */
export class TierLimitsDto {
  @ApiProperty({ description: 'KYC tier code as the customer module stores it', example: 'TIER_1', pattern: '^[A-Z][A-Z0-9_]{0,31}$' })
  @IsString()
  @Matches(/^[A-Z][A-Z0-9_]{0,31}$/, { context: { code: 'INVALID_TIER' } })
  tier: string;

  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  @IsIn(CURRENCIES)
  currency: Currency;

  @ApiProperty({ description: 'largest single payment or withdrawal', example: 100000, minimum: 1 })
  @IsMoney(1)
  singleMax: number;

  @ApiProperty({ description: 'largest total paid or withdrawn per calendar day (in `timezone`)', example: 200000, minimum: 1 })
  @IsMoney(1)
  dailyMax: number;

  @ApiProperty({ description: 'largest total paid or withdrawn per calendar month (in `timezone`)', example: 1000000, minimum: 1 })
  @IsMoney(1)
  monthlyMax: number;

  @ApiProperty({ description: 'largest balance the account may hold after receiving money', example: 500000, minimum: 1 })
  @IsMoney(1)
  balanceMax: number;
}

/** Ceilings of every agent in one currency (the cash it handles: cash-in plus cash-out). */
export class AgentCeilingsDto {
  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  @IsIn(CURRENCIES)
  currency: Currency;

  @ApiProperty({ description: 'largest single cash-in or cash-out', example: 2000000, minimum: 1 })
  @IsMoney(1)
  perOperationMax: number;

  @ApiProperty({ description: 'largest total of cash-ins and cash-outs per calendar day', example: 10000000, minimum: 1 })
  @IsMoney(1)
  dailyMax: number;
}

/** Section `limits`: amount bounds per type, customer limits per KYC tier, agent ceilings. */
export class LimitsDocumentDto {
  @ApiProperty({ description: 'IANA time zone in which days and months are counted', example: 'Africa/Douala', maxLength: 64 })
  @IsString()
  @MaxLength(64)
  timezone: string;

  @ApiProperty({
    description: 'how long a confirm may hold limit room before the payment outcome is known (seconds)',
    example: 300,
    minimum: 30,
    maximum: 3600,
  })
  @IsInt()
  @Min(30)
  @Max(3_600)
  holdSeconds: number;

  @ApiProperty({ type: [AmountBoundsDto], description: 'one entry per operation type and currency, all of them' })
  @IsArray()
  @ArrayMaxSize(OPERATION_TYPES.length * CURRENCIES.length)
  @ValidateNested({ each: true })
  @Type(() => AmountBoundsDto)
  amounts: AmountBoundsDto[];

  @ApiProperty({ type: [TierLimitsDto], description: 'for each currency, its tiers from the least to the most verified' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(40)
  @ValidateNested({ each: true })
  @Type(() => TierLimitsDto)
  tiers: TierLimitsDto[];

  @ApiProperty({ type: [AgentCeilingsDto], description: 'one entry per currency' })
  @IsArray()
  @ArrayMaxSize(CURRENCIES.length)
  @ValidateNested({ each: true })
  @Type(() => AgentCeilingsDto)
  agents: AgentCeilingsDto[];
}

export type AmountBounds = Pick<AmountBoundsDto, 'type' | 'currency' | 'min' | 'max'>;
export type TierLimits = Pick<TierLimitsDto, 'tier' | 'currency' | 'singleMax' | 'dailyMax' | 'monthlyMax' | 'balanceMax'>;
export type AgentCeilings = Pick<AgentCeilingsDto, 'currency' | 'perOperationMax' | 'dailyMax'>;
export interface LimitsDocument {
  timezone: string;
  holdSeconds: number;
  amounts: AmountBounds[];
  tiers: TierLimits[];
  agents: AgentCeilings[];
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Completeness, uniqueness and ordering rules of the limits section. */
export function limitsDocumentErrors(doc: LimitsDocument): FieldError[] {
  const errors: FieldError[] = [];
  if (!isTimeZone(doc.timezone)) errors.push({ field: 'timezone', code: 'INVALID_TIMEZONE', message: 'not an IANA time zone' });

  const amounts = new Set<string>();
  doc.amounts.forEach((row, i) => {
    const key = `${row.type}/${row.currency}`;
    if (amounts.has(key)) errors.push({ field: `amounts[${i}]`, code: 'GRID_DUPLICATE', message: `a second entry for ${key}` });
    amounts.add(key);
    if (row.max < row.min) errors.push({ field: `amounts[${i}].max`, code: 'MAX_BELOW_MIN', message: 'max must be at least min' });
  });
  for (const type of OPERATION_TYPES) {
    for (const currency of CURRENCIES) {
      if (!amounts.has(`${type}/${currency}`))
        errors.push({ field: 'amounts', code: 'GRID_MISSING', message: `no bounds for ${type}/${currency}` });
    }
  }

  const tiers = new Set<string>();
  doc.tiers.forEach((row, i) => {
    const key = `${row.tier}/${row.currency}`;
    if (tiers.has(key)) errors.push({ field: `tiers[${i}]`, code: 'GRID_DUPLICATE', message: `a second entry for ${key}` });
    tiers.add(key);
    if (row.dailyMax < row.singleMax || row.monthlyMax < row.dailyMax) {
      errors.push({ field: `tiers[${i}]`, code: 'LIMITS_NOT_ORDERED', message: 'singleMax ≤ dailyMax ≤ monthlyMax is required' });
    }
  });
  for (const currency of CURRENCIES) {
    if (!doc.tiers.some((t) => t.currency === currency))
      errors.push({ field: 'tiers', code: 'GRID_MISSING', message: `no tier for ${currency}` });
  }

  const agents = new Set<string>();
  doc.agents.forEach((row, i) => {
    if (agents.has(row.currency))
      errors.push({ field: `agents[${i}]`, code: 'GRID_DUPLICATE', message: `a second entry for ${row.currency}` });
    agents.add(row.currency);
    if (row.dailyMax < row.perOperationMax) {
      errors.push({ field: `agents[${i}].dailyMax`, code: 'MAX_BELOW_MIN', message: 'dailyMax must be at least perOperationMax' });
    }
  });
  for (const currency of CURRENCIES) {
    if (!agents.has(currency)) errors.push({ field: 'agents', code: 'GRID_MISSING', message: `no agent ceilings for ${currency}` });
  }
  return errors;
}
