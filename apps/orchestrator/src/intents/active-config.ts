import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type SqlRead, readAlong } from '@mm/platform';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import type { ConfigVersion } from '../config-api/config-sections';

/** The pricing, limits and risk versions in force at one instant. */
export interface ActiveConfig {
  pricing: ConfigVersion<'pricing'>;
  limits: ConfigVersion<'limits'>;
  risk: ConfigVersion<'risk'>;
}

const SECTIONS = ['pricing', 'limits', 'risk'] as const;

/**
 * The highest version of each section, as one JSON value ({"pricing": 12, …}) of a subquery without
 * parameters: it rides along the read a request makes first (`along`), costing no round trip of its own.
 */
const VERSIONS_SQL = `SELECT json_object_agg(s.section, (SELECT max(v.version) FROM orchestrator.config_versions v WHERE v.section = s.section))
  FROM unnest(ARRAY[${SECTIONS.map((s) => `'${s}'`).join(', ')}]::text[]) AS s(section)`;

/**
 * The versions in force for one create or confirm, read once: an index lookup of each section's
 * highest version, riding along the request's first read of its own record, and the documents
 * from ConfigVersionsService's cache (a version never changes). A change is still seen by the very
 * next request on every instance; within one request, limits, risk and pricing judge under
 * versions read at the same instant.
 */
@Injectable()
export class ActiveConfigReader {
  constructor(
    private readonly db: DataSource,
    private readonly versions: ConfigVersionsService,
  ) {}

  /**
   * `read`'s rows, and the versions in force read by the same statement (see readAlong); `config`
   * gets their documents, only when the caller needs them (a replay answers without).
   */
  async along<T>(read: SqlRead): Promise<{ rows: T[]; config: () => Promise<ActiveConfig> }> {
    const { rows, values } = await readAlong<T, 'versions'>(this.db, read, { versions: VERSIONS_SQL });
    return { rows, config: () => this.documents(values.versions as Record<string, number | null> | null) };
  }

  private async documents(found: Record<string, number | null> | null): Promise<ActiveConfig> {
    const version = (section: (typeof SECTIONS)[number]): number => {
      const highest = found?.[section];
      if (!highest) throw new Error(`configuration section ${section} has no version (migrations not run?)`);
      return Number(highest);
    };
    const [pricing, limits, risk] = await Promise.all([
      this.versions.get('pricing', version('pricing')),
      this.versions.get('limits', version('limits')),
      this.versions.get('risk', version('risk')),
    ]);
    return { pricing, limits, risk };
  }
}
