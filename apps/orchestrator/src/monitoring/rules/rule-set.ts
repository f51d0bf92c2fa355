import { Injectable } from '@nestjs/common';
import { AgentCyclingRule } from './agent-cycling.rule';
import { AgentVelocityRule } from './agent-velocity.rule';
import { DormantReactivationRule } from './dormant-reactivation.rule';
import { FanInRule } from './fan-in.rule';
import type { MonitoringDocument } from './monitoring-document';
import type { MonitoringRule } from './monitoring-rule';
import { PassThroughRule } from './pass-through.rule';
import { StructuringRule } from './structuring.rule';

export const RULE_PROVIDERS = [StructuringRule, PassThroughRule, DormantReactivationRule, AgentCyclingRule, FanInRule, AgentVelocityRule];

/** The rules the feed runs, in a fixed order (the order of RULE_CODES). */
@Injectable()
export class RuleSet {
  readonly rules: readonly MonitoringRule[];

  constructor(
    structuring: StructuringRule,
    passThrough: PassThroughRule,
    dormant: DormantReactivationRule,
    cycling: AgentCyclingRule,
    fanIn: FanInRule,
    velocity: AgentVelocityRule,
  ) {
    this.rules = [structuring, passThrough, dormant, cycling, fanIn, velocity];
  }

  /** How far back from an operation the rules look, at most (ms): how long a judgement may still read it. */
  lookbackMs(config: MonitoringDocument): number {
    return Math.max(0, ...this.rules.map((rule) => rule.lookbackMs(config)));
  }
}
