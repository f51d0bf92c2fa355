import { Injectable } from '@nestjs/common';
import type { FieldError } from '@mm/errors';
import type { Permission } from '../access/permission-list';
import type { ConfigSection, ConfigVersion, SectionDocuments } from './config-sections';
import type { ConfigChangeDto } from './dto/config-change.dto';

/** Reads the version of a section in force (what a rule across sections checks against). */
export type ActiveSectionReader = <T extends ConfigSection>(section: T) => Promise<ConfigVersion<T>>;

/** What the folder owning a section tells the configuration store about it. */
export interface ConfigSectionDefinition<S extends ConfigSection = ConfigSection> {
  section: S;
  /** the body of a change (baseVersion, reason, document), validated when a CONFIG_CHANGE request is parsed */
  changeDto: new () => ConfigChangeDto & { document: object };
  /** rules across the document's fields, run after the DTO's own validation */
  rules(document: SectionDocuments[S]): FieldError[];
  /** who may propose a change: any one of these permissions */
  makers: readonly Permission[];
  /** what the approver (or the rejecter) of a change must hold */
  checkerPermission: Permission;
  /** a change always waits for a compliance officer, whatever the one-person configuration says */
  requiresCompliance?: boolean;
}

/** A rule a section's document must meet given another section in force (run after the section's own rules). */
export type CrossSectionCheck<S extends ConfigSection> = (
  document: SectionDocuments[S],
  active: ActiveSectionReader,
) => Promise<FieldError[]>;

/**
 * Where section owners register their section when their module starts (as approval handlers do
 * with the approvals engine): the config API stays below pricing, limits, risk and monitoring, which
 * depend on it for their versions, instead of importing them back.
 */
@Injectable()
export class ConfigSectionRegistry {
  private readonly definitions = new Map<ConfigSection, ConfigSectionDefinition>();
  private readonly checks = new Map<ConfigSection, Array<CrossSectionCheck<ConfigSection>>>();

  register<S extends ConfigSection>(definition: ConfigSectionDefinition<S>): void {
    if (this.definitions.has(definition.section)) throw new Error(`configuration section ${definition.section} registered twice`);
    this.definitions.set(definition.section, definition as unknown as ConfigSectionDefinition);
  }

  addCheck<S extends ConfigSection>(section: S, check: CrossSectionCheck<S>): void {
    this.checks.set(section, [...(this.checks.get(section) ?? []), check as unknown as CrossSectionCheck<ConfigSection>]);
  }

  definition<S extends ConfigSection>(section: S): ConfigSectionDefinition<S> {
    const found = this.definitions.get(section);
    if (!found) throw new Error(`configuration section ${section} has no registered definition (its module not imported?)`);
    return found as unknown as ConfigSectionDefinition<S>;
  }

  /** The section's own rules, then every rule against other sections in force. */
  async errors<S extends ConfigSection>(section: S, document: SectionDocuments[S], active: ActiveSectionReader): Promise<FieldError[]> {
    const errors = [...this.definition(section).rules(document)];
    for (const check of this.checks.get(section) ?? []) errors.push(...(await check(document, active)));
    return errors;
  }
}
