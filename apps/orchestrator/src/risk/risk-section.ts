import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { ConfigSectionRegistry } from '../config-api/config-section-registry';
import { ConfigChangeDto } from '../config-api/dto/config-change.dto';
import { type RiskDocument, RiskDocumentDto, riskDocumentErrors } from './risk-document';

declare module '../config-api/config-sections' {
  interface SectionDocuments {
    risk: RiskDocument;
  }
}

export class ChangeRiskDto extends ConfigChangeDto {
  @ApiProperty({ type: RiskDocumentDto, description: 'the complete new risk section (it replaces the previous one)' })
  @ValidateNested()
  @Type(() => RiskDocumentDto)
  document: RiskDocumentDto;
}

/** Registers the risk section with the config API. */
@Injectable()
export class RiskConfigSection implements OnModuleInit {
  constructor(private readonly sections: ConfigSectionRegistry) {}

  onModuleInit(): void {
    this.sections.register({
      section: 'risk',
      changeDto: ChangeRiskDto,
      rules: riskDocumentErrors,
      makers: ['config.manage'],
      checkerPermission: 'config.manage',
    });
  }
}
