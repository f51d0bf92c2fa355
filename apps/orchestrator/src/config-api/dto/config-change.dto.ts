import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { LimitsDocumentDto } from '../../limits/limits-document';
import { MonitoringDocumentDto } from '../../monitoring/rules/monitoring-document';
import { PricingDocumentDto } from '../../pricing/pricing-document';
import { RiskDocumentDto } from '../../risk/risk-document';

/** What every change carries besides the new document: the version it was made from, and why. */
export class ConfigChangeDto {
  @ApiProperty({
    description: 'the active version the change was made from; if another change landed since, 409 CONFIG_VERSION_CONFLICT',
    example: 1,
    minimum: 1,
  })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  baseVersion: number;

  @ApiProperty({
    description: 'why the configuration changes (kept with the version)',
    example: 'Lower transfer fees from 1 March',
    minLength: 3,
    maxLength: 500,
  })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

export class ChangePricingDto extends ConfigChangeDto {
  @ApiProperty({ type: PricingDocumentDto, description: 'the complete new pricing section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => PricingDocumentDto)
  document: PricingDocumentDto;
}

export class ChangeLimitsDto extends ConfigChangeDto {
  @ApiProperty({ type: LimitsDocumentDto, description: 'the complete new limits section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => LimitsDocumentDto)
  document: LimitsDocumentDto;
}

export class ChangeRiskDto extends ConfigChangeDto {
  @ApiProperty({ type: RiskDocumentDto, description: 'the complete new risk section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => RiskDocumentDto)
  document: RiskDocumentDto;
}

export class ChangeMonitoringDto extends ConfigChangeDto {
  @ApiProperty({ type: MonitoringDocumentDto, description: 'the complete new monitoring section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => MonitoringDocumentDto)
  document: MonitoringDocumentDto;
}
