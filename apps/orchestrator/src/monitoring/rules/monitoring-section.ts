import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { ConfigSectionRegistry } from '../../config-api/config-section-registry';
import { ConfigChangeDto } from '../../config-api/dto/config-change.dto';
import { CURRENCIES } from '../../common/operation-type';
import { type MonitoringDocument, MonitoringDocumentDto, monitoringDocumentErrors } from './monitoring-document';

declare module '../../config-api/config-sections' {
  interface SectionDocuments {
    monitoring: MonitoringDocument;
  }
}

export class ChangeMonitoringDto extends ConfigChangeDto {
  @ApiProperty({ type: MonitoringDocumentDto, description: 'the complete new monitoring section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => MonitoringDocumentDto)
  document: MonitoringDocumentDto;
}

const perCurrency = (amount: number) => CURRENCIES.map((currency) => ({ currency, amount }));

/** A whole request body for the OpenAPI document, every per-currency list naming each currency once. */
export const MONITORING_CHANGE_EXAMPLE = {
  baseVersion: 1,
  reason: 'Structuring window widened to 48 hours after the March review',
  document: {
    structuring: { enabled: true, windowSeconds: 172_800, minOperations: 3, nearThresholdPercent: 10, thresholds: perCurrency(1_000_000) },
    passThrough: { enabled: true, windowSeconds: 3_600, minOutSharePercent: 80, minAmountIn: perCurrency(200_000) },
    dormantReactivation: { enabled: true, dormantDays: 90, minAmount: perCurrency(100_000) },
    agentCycling: { enabled: true, windowSeconds: 86_400, minCycles: 3 },
    fanIn: { enabled: true, windowSeconds: 86_400, minDistinctPayers: 15, includeMerchants: false },
    agentVelocity: { enabled: true, windowSeconds: 3_600, maxOperations: 100, maxAmount: perCurrency(5_000_000) },
  },
};

/**
 * Registers the monitoring section with the config API. The rules are compliance's tool as much as
 * the administrators': compliance officers propose changes too, and only a compliance officer
 * approves one, so administrators alone can never switch monitoring rules off.
 */
@Injectable()
export class MonitoringConfigSection implements OnModuleInit {
  constructor(private readonly sections: ConfigSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register({
      section: 'monitoring',
      changeDto: ChangeMonitoringDto,
      rules: monitoringDocumentErrors,
      makers: ['config.manage', 'compliance.monitoring'],
      checkerPermission: 'compliance.monitoring',
      requiresCompliance: true,
    });
  }
}
