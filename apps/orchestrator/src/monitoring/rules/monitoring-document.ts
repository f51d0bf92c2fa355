import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, Max, Min, ValidateNested } from 'class-validator';
import type { FieldError } from '@mm/errors';
import { CURRENCIES, type Currency, IsMoney } from '../../common/operation-type';

/** An amount in one currency (integer, smallest unit). Each list holds every currency once. */
export class CurrencyAmountDto {
  @ApiProperty({ enum: CURRENCIES, example: 'XAF' })
  @IsIn(CURRENCIES)
  currency: Currency;

  @ApiProperty({ description: 'integer, smallest unit of the currency', example: 1000000, minimum: 1 })
  @IsMoney(1)
  amount: number;
}

const Amounts = (description: string) =>
  function (target: object, key: string) {
    ApiProperty({ type: [CurrencyAmountDto], description: `${description}; one entry per currency` })(target, key);
    IsArray()(target, key);
    ArrayMinSize(1)(target, key);
    ArrayMaxSize(CURRENCIES.length)(target, key);
    ValidateNested({ each: true })(target, key);
    Type(() => CurrencyAmountDto)(target, key);
  };

const Seconds = (description: string, example: number, max = 30 * 86_400) =>
  function (target: object, key: string) {
    ApiProperty({ description, example, minimum: 60, maximum: max })(target, key);
    IsInt()(target, key);
    Min(60)(target, key);
    Max(max)(target, key);
  };

const Count = (description: string, example: number, min: number, max: number) =>
  function (target: object, key: string) {
    ApiProperty({ description, example, minimum: min, maximum: max })(target, key);
    IsInt()(target, key);
    Min(min)(target, key);
    Max(max)(target, key);
  };

const Enabled = () =>
  function (target: object, key: string) {
    ApiProperty({ description: 'false: the rule is not run', example: true })(target, key);
    IsBoolean()(target, key);
  };

/** STRUCTURING: several operations of one payer just under the reporting threshold, adding up above it. */
export class StructuringRuleDto {
  @Enabled() enabled: boolean;
  @Seconds('window over which near-threshold operations are added up', 86400) windowSeconds: number;
  @Count('near-threshold operations needed in the window', 3, 2, 1000) minOperations: number;
  @Count('how far under the threshold an operation still counts as near it (percent of the threshold)', 10, 1, 50)
  nearThresholdPercent: number;
  @Amounts('the amount at which one operation is reported to the financial intelligence unit') thresholds: CurrencyAmountDto[];
}

/** PASS_THROUGH: money received and sent on within a short window. */
export class PassThroughRuleDto {
  @Enabled() enabled: boolean;
  @Seconds('window in which money in and money out are compared', 3600) windowSeconds: number;
  @Count('share of what came in that went out again (percent) for an alert', 80, 1, 100) minOutSharePercent: number;
  @Amounts('least total received in the window for the rule to look at it') minAmountIn: CurrencyAmountDto[];
}

/** DORMANT_REACTIVATION: no operation for a long time, then a large one. */
export class DormantReactivationRuleDto {
  @Enabled() enabled: boolean;
  @Count('days without any operation after which a person is dormant', 90, 7, 3650) dormantDays: number;
  @Amounts('least amount of the operation that wakes the person up') minAmount: CurrencyAmountDto[];
}

/** AGENT_CYCLING: an agent cashing in and cashing out for the same customer again and again. */
export class AgentCyclingRuleDto {
  @Enabled() enabled: boolean;
  @Seconds('window over which cash-ins and cash-outs between one agent and one customer are paired', 86400) windowSeconds: number;
  @Count('pairs of a cash-in and a cash-out for an alert', 3, 2, 1000) minCycles: number;
}

/** FAN_IN: many distinct payers converging on one recipient. */
export class FanInRuleDto {
  @Enabled() enabled: boolean;
  @Seconds('window over which distinct payers are counted', 86400) windowSeconds: number;
  @Count('distinct payers of one recipient for an alert', 15, 2, 100000) minDistinctPayers: number;

  @ApiProperty({ description: 'false: merchants, whom many customers pay by design, are not judged by this rule', example: false })
  @IsBoolean()
  includeMerchants: boolean;
}

/** AGENT_VELOCITY: more operations (or more money) through one agent in a window than an agent normally handles. */
export class AgentVelocityRuleDto {
  @Enabled() enabled: boolean;
  @Seconds('window over which an agent’s cash-ins and cash-outs are counted', 3600) windowSeconds: number;
  @Count('operations per window for an alert', 100, 2, 1000000) maxOperations: number;
  @Amounts('total amount per window for an alert') maxAmount: CurrencyAmountDto[];
}

/** Section `monitoring`: the transaction monitoring rules and their thresholds (compliance reads them; administrators change them). */
export class MonitoringDocumentDto {
  @ApiProperty({ type: StructuringRuleDto })
  @ValidateNested()
  @Type(() => StructuringRuleDto)
  structuring: StructuringRuleDto;

  @ApiProperty({ type: PassThroughRuleDto })
  @ValidateNested()
  @Type(() => PassThroughRuleDto)
  passThrough: PassThroughRuleDto;

  @ApiProperty({ type: DormantReactivationRuleDto })
  @ValidateNested()
  @Type(() => DormantReactivationRuleDto)
  dormantReactivation: DormantReactivationRuleDto;

  @ApiProperty({ type: AgentCyclingRuleDto })
  @ValidateNested()
  @Type(() => AgentCyclingRuleDto)
  agentCycling: AgentCyclingRuleDto;

  @ApiProperty({ type: FanInRuleDto })
  @ValidateNested()
  @Type(() => FanInRuleDto)
  fanIn: FanInRuleDto;

  @ApiProperty({ type: AgentVelocityRuleDto })
  @ValidateNested()
  @Type(() => AgentVelocityRuleDto)
  agentVelocity: AgentVelocityRuleDto;
}

type Plain<T> = { [K in keyof T]: T[K] extends CurrencyAmountDto[] ? Array<{ currency: Currency; amount: number }> : T[K] };

export interface MonitoringDocument {
  structuring: Plain<StructuringRuleDto>;
  passThrough: Plain<PassThroughRuleDto>;
  dormantReactivation: Plain<DormantReactivationRuleDto>;
  agentCycling: Plain<AgentCyclingRuleDto>;
  fanIn: Plain<FanInRuleDto>;
  agentVelocity: Plain<AgentVelocityRuleDto>;
}

const AMOUNT_LISTS = [
  ['structuring', 'thresholds'],
  ['passThrough', 'minAmountIn'],
  ['dormantReactivation', 'minAmount'],
  ['agentVelocity', 'maxAmount'],
] as const;

/** Every per-currency list names each currency exactly once. */
export function monitoringDocumentErrors(doc: MonitoringDocument): FieldError[] {
  const errors: FieldError[] = [];
  for (const [rule, list] of AMOUNT_LISTS) {
    const rows = (doc[rule] as unknown as Record<string, Array<{ currency: Currency }>>)[list] ?? [];
    const seen = new Set<string>();
    rows.forEach((row, i) => {
      if (seen.has(row.currency)) {
        errors.push({ field: `${rule}.${list}[${i}]`, code: 'GRID_DUPLICATE', message: `a second entry for ${row.currency}` });
      }
      seen.add(row.currency);
    });
    for (const currency of CURRENCIES) {
      if (!seen.has(currency)) errors.push({ field: `${rule}.${list}`, code: 'GRID_MISSING', message: `no amount for ${currency}` });
    }
  }
  return errors;
}

/** The amount of a per-currency list for one currency; undefined for a currency the list does not name. */
export function amountIn(rows: ReadonlyArray<{ currency: string; amount: number }>, currency: string): number | undefined {
  return rows.find((r) => r.currency === currency)?.amount;
}
