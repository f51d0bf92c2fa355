import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { ConfigSectionRegistry } from '../config-api/config-section-registry';
import { ConfigChangeDto } from '../config-api/dto/config-change.dto';
import { ActiveConfigView } from '../config-api/dto/config-views';
import type { LimitsDocument } from '../limits/limits-document';
import { OrchestratorConfig } from '../orchestrator.config';
import { amountBoundsCommissionErrors, commissionBoundsErrors } from './commission-rules';
import { CURRENCIES, everyTypeAndCurrency } from '../common/operation-type';
import { type PricingDocument, PricingDocumentDto, pricingDocumentErrors } from './pricing-document';

declare module '../config-api/config-sections' {
  interface SectionDocuments {
    pricing: PricingDocument;
  }
}

export class ChangePricingDto extends ConfigChangeDto {
  @ApiProperty({ type: PricingDocumentDto, description: 'the complete new pricing section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => PricingDocumentDto)
  document: PricingDocumentDto;
}

export class ActivePricingView extends ActiveConfigView {
  @ApiProperty({ type: PricingDocumentDto })
  document: PricingDocumentDto;
}

/**
 * A whole request body for the OpenAPI document. A section is only accepted complete (a grid for
 * every operation type and currency, bands tiling [1, ∞)), so an example assembled from per-field
 * examples would be refused; this one is built from the lists the server checks against, so it stays
 * complete when a type or a currency is added.
 */
export const PRICING_CHANGE_EXAMPLE = {
  baseVersion: 1,
  reason: 'Lower transfer fees from 1 March',
  document: {
    quoteValiditySeconds: 900,
    fees: everyTypeAndCurrency((type, currency) => ({
      type,
      currency,
      bands:
        type === 'MERCHANT_PAYMENT'
          ? [{ from: 1, to: null, fixed: 0, rateBps: 0 }]
          : [
              { from: 1, to: 5000, fixed: 50, rateBps: 0 },
              { from: 5001, to: null, fixed: 0, rateBps: 100 },
            ],
    })),
    commissions: CURRENCIES.flatMap((currency) =>
      (['CASH_IN', 'CASH_OUT'] as const).map((type) => ({ type, currency, bands: [{ from: 1, to: null, fixed: 0, rateBps: 50 }] })),
    ),
  },
};

/**
 * Registers the pricing section with the config API, and the one rule across sections: what a
 * commission grid may pay (never more than the amount, never more than COMMISSION_MAX_PER_OPERATION)
 * depends on the amounts the limits allow, so a pricing change is checked against the limits in
 * force and a limits change against the pricing in force. Should two such changes cross, a quote
 * out of range is still refused at intent create.
 */
@Injectable()
export class PricingConfigSection implements OnModuleInit {
  constructor(
    private readonly sections: ConfigSectionRegistry,
    private readonly appConfig: OrchestratorConfig,
  ) {}

  onModuleInit(): void {
    this.sections.register({
      section: 'pricing',
      changeDto: ChangePricingDto,
      rules: pricingDocumentErrors,
      makers: ['config.manage'],
      checkerPermission: 'config.manage',
    });
    const ceiling = () => this.appConfig.COMMISSION_MAX_PER_OPERATION;
    this.sections.addCheck('pricing', async (document, active) =>
      commissionBoundsErrors(document, (await active('limits')).document.amounts, ceiling()),
    );
    this.sections.addCheck('limits', async (document: LimitsDocument, active) =>
      amountBoundsCommissionErrors(document.amounts, (await active('pricing')).document, ceiling()),
    );
  }
}
