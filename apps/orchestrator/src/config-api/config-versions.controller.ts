import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { diffDocuments } from './config-diff';
import { DiffQueryDto, HistoryQueryDto, parseSection, parseVersion } from './config-params';
import { CONFIG_SECTIONS, type ConfigVersion } from './config-sections';
import { ConfigVersionsService } from './config-versions.service';
import { ConfigDiffView, ConfigHistoryView, ConfigVersionView } from './dto/config-views';

/**
 * `/api/config/{section}/versions*`: the history of every versioned section, for holders of
 * `config.manage` (staff ids, reasons). Each section's folder serves its own read and change routes
 * (pricing/pricing-config.controller.ts and the like) with the section's typed body: fees,
 * commissions and limits are public (a customer sees the tariff before signing in, an agent its
 * commission grid), risk thresholds and every change are not. A change is a CONFIG_CHANGE request of
 * the maker-checker engine (`config-change.handler.ts`, submitted by ConfigChangeSubmitter): pending
 * until a second administrator approves it, unless configuration lets one person make it.
 */
@ApiTags('config')
@Controller('config')
export class ConfigVersionsController {
  constructor(private readonly versions: ConfigVersionsService) {}

  @Get(':section/versions')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiParam({ name: 'section', enum: CONFIG_SECTIONS })
  @ApiOperation({ summary: 'Change history of a section, newest first: version, who, when, why' })
  @ApiOkResponse({ type: ConfigHistoryView })
  @ApiErrors('VALIDATION_ERROR')
  async history(@Param('section') section: string, @Query() query: HistoryQueryDto): Promise<ConfigHistoryView> {
    const versions = await this.versions.history(parseSection(section), { before: query.before, limit: query.limit ?? 20 });
    const last = versions[versions.length - 1];
    return { versions, nextBefore: last && last.version > 1 && versions.length === (query.limit ?? 20) ? last.version : null };
  }

  @Get(':section/versions/diff')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiParam({ name: 'section', enum: CONFIG_SECTIONS })
  @ApiOperation({
    summary: 'What changed between two versions of a section (from → to): who made each, when, why, and every changed value',
  })
  @ApiOkResponse({ type: ConfigDiffView })
  @ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_NOT_FOUND')
  async diff(@Param('section') section: string, @Query() query: DiffQueryDto): Promise<ConfigDiffView> {
    const name = parseSection(section);
    const [from, to] = await Promise.all([this.versions.get(name, query.from), this.versions.get(name, query.to)]);
    const { document: _from, ...fromSummary } = from;
    const { document: _to, ...toSummary } = to;
    return { section: name, from: fromSummary, to: toSummary, changes: diffDocuments(from.document, to.document) };
  }

  @Get(':section/versions/:version')
  @RequirePermission('config.manage')
  @ApiAdminRoute('config.manage')
  @ApiParam({ name: 'section', enum: CONFIG_SECTIONS })
  @ApiParam({ name: 'version', schema: { type: 'integer', minimum: 1, maximum: 999_999_999, example: 1 } })
  @ApiOperation({ summary: 'One version of a section, as it was (the version a quote or a risk decision recorded)' })
  @ApiOkResponse({ type: ConfigVersionView })
  @ApiErrors('VALIDATION_ERROR', 'CONFIG_VERSION_NOT_FOUND')
  version(@Param('section') section: string, @Param('version') version: string): Promise<ConfigVersion> {
    return this.versions.get(parseSection(section), parseVersion(version));
  }
}
