import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { DataSource } from 'typeorm';
import { ConfigVersionsService } from '../../config-api/config-versions.service';
import type { MonitoringDocument } from './monitoring-document';
import { RULE_CODES, type RuleCode } from './monitoring-rule';
import type { MonitoringRulesView, RuleFailurePageView } from './monitoring-rules.views';

const SECTION_OF: Record<RuleCode, keyof MonitoringDocument> = {
  STRUCTURING: 'structuring',
  PASS_THROUGH: 'passThrough',
  DORMANT_REACTIVATION: 'dormantReactivation',
  AGENT_CYCLING: 'agentCycling',
  FAN_IN: 'fanIn',
  AGENT_VELOCITY: 'agentVelocity',
};

/** The rules in force and the record of rules that failed, for compliance. */
@Injectable()
export class MonitoringRulesService {
  constructor(
    private readonly db: DataSource,
    private readonly versions: ConfigVersionsService,
  ) {}

  async current(): Promise<MonitoringRulesView> {
    const active = await this.versions.active('monitoring');
    return {
      version: active.version,
      createdBy: active.createdBy,
      createdAt: active.createdAt,
      reason: active.reason,
      rules: RULE_CODES.map((code) => ({ code, enabled: active.document[SECTION_OF[code]].enabled })),
      document: active.document as never,
    };
  }

  async failures(filter: { rule?: string; cursor?: string; limit: number }): Promise<RuleFailurePageView> {
    if (filter.cursor !== undefined && !/^[1-9][0-9]{0,17}$/.test(filter.cursor)) {
      throw new AppException('VALIDATION_ERROR', 'cursor: not a cursor this API issued', {
        errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'not a cursor this API issued' }],
      });
    }
    const rows = await queryRows<{
      id: string;
      rule: string;
      event_id: string;
      config_version: number;
      error: string;
      occurrences: number;
      batch_id: string | null;
      at: Date;
    }>(
      this.db,
      `SELECT id::text, rule, event_id, config_version, error, occurrences, batch_id, at FROM orchestrator.monitoring_rule_failures
        WHERE ($1::text IS NULL OR rule = $1) AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [filter.rule ?? null, filter.cursor ?? null, filter.limit + 1],
    );
    const page = rows.slice(0, filter.limit);
    return {
      items: page.map((r) => ({
        id: r.id,
        rule: r.rule,
        eventId: r.event_id,
        configVersion: r.config_version,
        error: r.error,
        occurrences: r.occurrences,
        batchId: r.batch_id,
        at: r.at.toISOString(),
      })),
      nextCursor: rows.length > filter.limit ? page[page.length - 1].id : null,
    };
  }
}
