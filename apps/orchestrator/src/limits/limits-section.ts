import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { ConfigSectionRegistry } from '../config-api/config-section-registry';
import { ConfigChangeDto } from '../config-api/dto/config-change.dto';
import { ActiveConfigView } from '../config-api/dto/config-views';
import { CURRENCIES, everyTypeAndCurrency } from '../common/operation-type';
import { type LimitsDocument, LimitsDocumentDto, limitsDocumentErrors } from './limits-document';

declare module '../config-api/config-sections' {
  interface SectionDocuments {
    limits: LimitsDocument;
  }
}

export class ChangeLimitsDto extends ConfigChangeDto {
  @ApiProperty({ type: LimitsDocumentDto, description: 'the complete new limits section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => LimitsDocumentDto)
  document: LimitsDocumentDto;
}

export class ActiveLimitsView extends ActiveConfigView {
  @ApiProperty({ type: LimitsDocumentDto })
  document: LimitsDocumentDto;
}

/** A whole request body for the OpenAPI document, complete for every type and currency (as the server requires). */
export const LIMITS_CHANGE_EXAMPLE = {
  baseVersion: 1,
  reason: 'Higher cash-out ceiling for the holidays',
  document: {
    timezone: 'Africa/Douala',
    holdSeconds: 300,
    amounts: everyTypeAndCurrency((type, currency) => ({ type, currency, min: type === 'CASH_OUT' ? 500 : 100, max: 1_000_000 })),
    tiers: CURRENCIES.map((currency) => ({
      tier: 'TIER_1',
      currency,
      singleMax: 100_000,
      dailyMax: 200_000,
      monthlyMax: 1_000_000,
      balanceMax: 500_000,
    })),
    agents: CURRENCIES.map((currency) => ({ currency, perOperationMax: 2_000_000, dailyMax: 10_000_000 })),
  },
};

/** Registers the limits section with the config API (its rule against pricing is registered by pricing). */
@Injectable()
export class LimitsConfigSection implements OnModuleInit {
  constructor(private readonly sections: ConfigSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register({
      section: 'limits',
      changeDto: ChangeLimitsDto,
      rules: limitsDocumentErrors,
      makers: ['config.manage'],
      checkerPermission: 'config.manage',
    });
  }
}
