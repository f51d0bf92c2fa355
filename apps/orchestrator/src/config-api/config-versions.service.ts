import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { ConfigSectionRegistry } from './config-section-registry';
import type { ConfigSection, ConfigVersion, SectionDocuments } from './config-sections';

interface VersionRow {
  section: ConfigSection;
  version: number;
  document: unknown;
  created_by: string;
  reason: string;
  created_at: Date;
}

export interface ConfigChange<S extends ConfigSection> {
  /** the version the author read and edited; another change since then → 409 CONFIG_VERSION_CONFLICT */
  baseVersion: number;
  document: SectionDocuments[S];
  createdBy: string;
  reason: string;
}

const COLUMNS = 'section, version, document, created_by, reason, created_at';

/**
 * Versions kept in memory at most (least recently read dropped first): the ones in force and those
 * staff look at. Without a bound, reading a long history would keep every version ever approved.
 */
export const MAX_CACHED_VERSIONS = 64;

/**
 * The versioned configuration store. A change appends version N+1 of a section (a database trigger
 * forbids updating or deleting a version and skipping a number); the active version is the
 * highest. Versions never change, so each one is cached in memory once read (never stale; bounded by
 * MAX_CACHED_VERSIONS); which version is in force is read from the database on every call, so a
 * change approved through one replica applies on every replica at its next read.
 */
@Injectable()
export class ConfigVersionsService {
  private readonly logger = new Logger(ConfigVersionsService.name);
  /** least recently read first (a hit moves its entry to the end) */
  private readonly cache = new Map<string, ConfigVersion>();

  constructor(
    private readonly db: DataSource,
    private readonly sections: ConfigSectionRegistry,
  ) {}

  /** The version in force now (one indexed read: changes are visible at once on every instance). */
  async active<S extends ConfigSection>(section: S): Promise<ConfigVersion<S>> {
    const [row] = await queryRows<{ version: number }>(
      this.db,
      `SELECT max(version) AS version FROM orchestrator.config_versions WHERE section = $1`,
      [section],
    );
    if (!row?.version) throw new Error(`configuration section ${section} has no version (migrations not run?)`);
    return this.get(section, row.version);
  }

  async get<S extends ConfigSection>(section: S, version: number): Promise<ConfigVersion<S>> {
    const key = `${section}/${version}`;
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached as ConfigVersion<S>;
    }
    const [row] = await queryRows<VersionRow>(
      this.db,
      `SELECT ${COLUMNS} FROM orchestrator.config_versions WHERE section = $1 AND version = $2`,
      [section, version],
    );
    if (!row) throw new AppException('CONFIG_VERSION_NOT_FOUND', `No version ${version} of the ${section} configuration`);
    const found = toVersion<S>(row);
    if (this.cache.size >= MAX_CACHED_VERSIONS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, found);
    return found;
  }

  /** How many versions this instance holds in memory (at most MAX_CACHED_VERSIONS). */
  get cachedVersions(): number {
    return this.cache.size;
  }

  /** Newest first, without the documents; `before` pages backwards. */
  async history(section: ConfigSection, options: { before?: number; limit: number }): Promise<Array<Omit<ConfigVersion, 'document'>>> {
    const rows = await queryRows<VersionRow>(
      this.db,
      `SELECT section, version, NULL::jsonb AS document, created_by, reason, created_at FROM orchestrator.config_versions
        WHERE section = $1 AND ($2::int IS NULL OR version < $2) ORDER BY version DESC LIMIT $3`,
      [section, options.before ?? null, options.limit],
    );
    return rows.map((row) => {
      const { document: _document, ...rest } = toVersion(row);
      return rest;
    });
  }

  /**
   * What `append` would refuse, checked now without writing: the section's rules across fields, the
   * rules its owners registered against other sections in force, and `baseVersion` still the active one
   * (a change submitted for approval is checked when it is submitted, and again when it runs).
   */
  async check<S extends ConfigSection>(section: S, change: Pick<ConfigChange<S>, 'baseVersion' | 'document'>): Promise<void> {
    await this.validate(section, change.document);
    const active = await this.active(section);
    if (active.version !== change.baseVersion) {
      throw new AppException('CONFIG_VERSION_CONFLICT', `The ${section} configuration is no longer at version ${change.baseVersion}`);
    }
  }

  /** Validates the document as a whole and appends it as the next version, if `baseVersion` is still the active one. */
  async append<S extends ConfigSection>(section: S, change: ConfigChange<S>): Promise<ConfigVersion<S>> {
    await this.validate(section, change.document);
    let rows: VersionRow[];
    try {
      rows = await queryRows<VersionRow>(
        this.db,
        `INSERT INTO orchestrator.config_versions (section, version, document, created_by, reason)
         SELECT $1, $2::int + 1, $3::jsonb, $4, $5
          WHERE (SELECT max(version) FROM orchestrator.config_versions WHERE section = $1) = $2
         RETURNING ${COLUMNS}`,
        [section, change.baseVersion, JSON.stringify(change.document), change.createdBy, change.reason],
      );
    } catch (error) {
      // Two changes on the same base at once: the primary key lets only the first one in.
      if ((error as { code?: string }).code === '23505') rows = [];
      else throw error;
    }
    if (rows.length === 0) {
      throw new AppException('CONFIG_VERSION_CONFLICT', `The ${section} configuration is no longer at version ${change.baseVersion}`);
    }
    const created = toVersion<S>(rows[0]);
    this.logger.log({ msg: 'configuration changed', section, version: created.version, createdBy: change.createdBy });
    return created;
  }

  private async validate<S extends ConfigSection>(section: S, document: SectionDocuments[S]): Promise<void> {
    const errors = (await this.sections.errors(section, document, (other) => this.active(other))).map((e) => ({
      ...e,
      field: `document.${e.field}`,
    }));
    if (errors.length > 0) {
      throw new AppException('VALIDATION_ERROR', `${errors[0].field}: ${errors[0].message}`, { errors });
    }
  }
}

function toVersion<S extends ConfigSection>(row: VersionRow): ConfigVersion<S> {
  return {
    section: row.section as S,
    version: Number(row.version),
    document: row.document as SectionDocuments[S],
    createdBy: row.created_by,
    reason: row.reason,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
