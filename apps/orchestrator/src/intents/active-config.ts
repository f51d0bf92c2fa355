import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@mm/platform';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import { CONFIG_SECTIONS, type ConfigSection, type ConfigVersion } from '../config-api/config-sections';

/** The pricing, limits and risk versions in force at one instant. */
export interface ActiveConfig {
  pricing: ConfigVersion<'pricing'>;
  limits: ConfigVersion<'limits'>;
  risk: ConfigVersion<'risk'>;
}

/**
 * The versions in force for one create or confirm, read once: one statement for the three
 * sections (each an index lookup of its highest version), documents from ConfigVersionsService's
 * cache (a version never changes). A change is still seen by the very next request on every
 * instance; within one request, limits, risk and pricing now judge under versions read at the
 * same instant, rather than under four reads that a concurrent change could fall between.
 * (bench:flow: a flow read `max(version)` eight times before.)
 */
@Injectable()
export class ActiveConfigReader {
  constructor(
    private readonly db: DataSource,
    private readonly versions: ConfigVersionsService,
  ) {}

  async read(): Promise<ActiveConfig> {
    const rows = await queryRows<{ section: ConfigSection; version: number | null }>(
      this.db,
      `SELECT s.section, (SELECT max(v.version) FROM orchestrator.config_versions v WHERE v.section = s.section) AS version
         FROM unnest($1::text[]) AS s(section)`,
      [CONFIG_SECTIONS],
    );
    const version = (section: ConfigSection): number => {
      const found = rows.find((r) => r.section === section)?.version;
      if (!found) throw new Error(`configuration section ${section} has no version (migrations not run?)`);
      return Number(found);
    };
    const [pricing, limits, risk] = await Promise.all([
      this.versions.get('pricing', version('pricing')),
      this.versions.get('limits', version('limits')),
      this.versions.get('risk', version('risk')),
    ]);
    return { pricing, limits, risk };
  }
}
