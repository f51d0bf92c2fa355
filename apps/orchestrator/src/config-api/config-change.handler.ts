import { Injectable, type OnModuleInit } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppException, flattenValidationErrors } from '@mm/errors';
import type { AuthUser } from '../access/permissions';
import type { ApprovalHandler, PreparedState } from '../approvals/approval-handler';
import { ApprovalRegistry } from '../approvals/approval-registry';
import { canonicalJson, requestHash } from '../common/canonical-hash';
import { diffDocuments } from './config-diff';
import { parseSection } from './config-params';
import { ConfigSectionRegistry } from './config-section-registry';
import { CONFIG_SECTIONS, type ConfigSection, type SectionDocuments } from './config-sections';
import { ConfigVersionsService } from './config-versions.service';

/** A CONFIG_CHANGE request's payload: the body of `POST /api/config/{section}/versions`, with its section. */
export interface ConfigChangePayload<S extends ConfigSection = ConfigSection> {
  section: S;
  baseVersion: number;
  /** why the configuration changes: kept with the new version */
  reason: string;
  document: SectionDocuments[S];
}

// Named from the list of sections, so a section added there is named in the refusal too.
const SECTION_MESSAGE = `must be one of ${CONFIG_SECTIONS.join(', ')}`;
/**
 * CONFIG_CHANGE: a new version of a configuration section through the maker-checker engine. The
 * change is checked when it is submitted (the same rules as a direct change, on the version in
 * force) and appended with the maker as its author when it is approved; a change that landed in
 * between makes the execution fail with CONFIG_VERSION_CONFLICT (submit it again on the new base).
 *
 * Who decides depends on the section (docs/approvals.md), as its owner registered it
 * (ConfigSectionRegistry): pricing, limits and risk need `config.manage` on both sides; a monitoring
 * change may be proposed by holders of `config.manage` or `compliance.monitoring` and is approved
 * only by a compliance officer (`requiresCompliance`), so administrators alone can never switch
 * monitoring rules off. The engine checks one permission per side, the one every possible maker or
 * checker holds; `prepare` and `refuseChecker` then apply the section's own rule.
 */
@Injectable()
export class ConfigChangeHandler implements ApprovalHandler<ConfigChangePayload>, OnModuleInit {
  readonly action = 'CONFIG_CHANGE' as const;
  /** held by every section's makers (administrators hold it too); `prepare` checks the section's own */
  readonly makerPermission = 'compliance.monitoring' as const;
  /** held by administrators and compliance officers; `refuseChecker` checks the section's own */
  readonly checkerPermission = 'transactions.approve' as const;
  readonly fourEyesMandatory = false;

  constructor(
    private readonly registry: ApprovalRegistry,
    private readonly versions: ConfigVersionsService,
    private readonly sections: ConfigSectionRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  parse(payload: unknown): ConfigChangePayload {
    const raw = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
    let section: ConfigSection;
    try {
      section = parseSection(String(raw.section));
    } catch {
      throw new AppException('VALIDATION_ERROR', `payload.section: ${SECTION_MESSAGE}`, {
        errors: [{ field: 'payload.section', code: 'INVALID_SECTION', message: SECTION_MESSAGE }],
      });
    }
    const { section: _section, ...body } = raw;
    const cls = this.sections.definition(section).changeDto;
    const dto = plainToInstance(cls, body);
    const errors = flattenValidationErrors(
      validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } }),
      'payload',
    );
    if (errors.length > 0) throw new AppException('VALIDATION_ERROR', `${errors[0].field}: ${errors[0].message}`, { errors });
    // a plain copy: what is stored is exactly the validated fields
    return JSON.parse(
      JSON.stringify({ section, baseVersion: dto.baseVersion, reason: dto.reason, document: dto.document }),
    ) as ConfigChangePayload;
  }

  describe(payload: ConfigChangePayload) {
    return {
      target: { type: 'config' as const, id: payload.section },
      summary: `New version of the ${payload.section} configuration on top of version ${payload.baseVersion}: ${payload.reason}`,
    };
  }

  /** The same document on the same base is the same change, whatever the reason given. */
  dedupKey(payload: ConfigChangePayload): string {
    return requestHash({ section: payload.section, baseVersion: payload.baseVersion, document: payload.document });
  }

  async prepare(payload: ConfigChangePayload, maker: AuthUser): Promise<PreparedState> {
    const makers = this.sections.definition(payload.section).makers;
    if (!makers.some((p) => maker.permissions.includes(p))) {
      throw new AppException(
        'FORBIDDEN',
        `A change of the ${payload.section} configuration requires the ${makers.join(' or ')} permission`,
      );
    }
    await this.versions.check(payload.section, payload);
    return { authorId: maker.userId };
  }

  /** A monitoring change waits for a compliance officer, whoever proposed it. */
  requiresCompliance(payload: ConfigChangePayload): boolean {
    return this.sections.definition(payload.section).requiresCompliance === true;
  }

  /**
   * Pricing, limits and risk are decided (approved or rejected) by holders of `config.manage`, as
   * before; a monitoring change by compliance officers (approving) or administrators (rejecting).
   */
  refuseChecker(payload: ConfigChangePayload, _prepared: PreparedState, checker: AuthUser): AppException | null {
    const required = this.sections.definition(payload.section).checkerPermission;
    return checker.permissions.includes(required) ? null : new AppException('FORBIDDEN', `This requires the ${required} permission`);
  }

  async preview(payload: ConfigChangePayload): Promise<unknown> {
    const active = await this.versions.active(payload.section);
    return {
      section: payload.section,
      baseVersion: payload.baseVersion,
      activeVersion: active.version,
      // approving a change made on an older version fails with CONFIG_VERSION_CONFLICT
      stale: active.version !== payload.baseVersion,
      changes: diffDocuments(active.document, payload.document),
    };
  }

  async execute(payload: ConfigChangePayload, prepared: PreparedState, checker: AuthUser): Promise<unknown> {
    const authorId = typeof prepared?.authorId === 'string' ? prepared.authorId : checker.userId;
    // Run again after a crash: the version this request appended is already there.
    const active = await this.versions.active(payload.section);
    if (
      active.version === payload.baseVersion + 1 &&
      active.createdBy === authorId &&
      canonicalJson(active.document) === canonicalJson(payload.document)
    ) {
      return { section: payload.section, version: active.version };
    }
    const created = await this.versions.append(payload.section, {
      baseVersion: payload.baseVersion,
      document: payload.document,
      createdBy: authorId,
      reason: payload.reason,
    });
    return { section: created.section, version: created.version };
  }
}
