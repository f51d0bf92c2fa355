import { Injectable } from '@nestjs/common';
import { amountIn, type MonitoringDocument } from './monitoring-document';
import {
  type Candidate,
  type MonitoredOperation,
  type MonitoringRule,
  type RuleContext,
  type RuleHit,
  SECOND,
  agentOf,
  duration,
  money,
  sum,
} from './monitoring-rule';

/**
 * AGENT_VELOCITY: more cash operations through one agent in the window than `maxOperations` (all
 * currencies), or more money than `maxAmount` in the trigger's currency. Above, not at: the maximum
 * itself is still a normal day.
 */
@Injectable()
export class AgentVelocityRule implements MonitoringRule {
  readonly code = 'AGENT_VELOCITY' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.agentVelocity.windowSeconds * SECOND;
  }

  candidates(t: MonitoredOperation, config: MonitoringDocument): Candidate[] {
    const rule = config.agentVelocity;
    const agent = agentOf(t);
    if (!rule.enabled || !agent || amountIn(rule.maxAmount, t.currency) === undefined) return [];
    return [{ subject: agent, history: { from: t.at - rule.windowSeconds * SECOND, side: 'either' } }];
  }

  evaluate(ctx: RuleContext): RuleHit | null {
    const rule = ctx.config.agentVelocity;
    const t = ctx.trigger;
    const agent = ctx.subject;
    const maxAmount = amountIn(rule.maxAmount, t.currency);
    if (maxAmount === undefined) return null;

    const from = t.at - rule.windowSeconds * SECOND;
    const ops = ctx.history(from).filter((op) => agentOf(op)?.userId === agent.userId);
    const inCurrency = ops.filter((op) => op.currency === t.currency);
    const total = sum(inCurrency);
    const tooMany = ops.length > rule.maxOperations;
    const tooMuch = total > maxAmount;
    if (!tooMany && !tooMuch) return null;
    const what = [
      tooMany ? `${ops.length} cash operations (more than ${rule.maxOperations})` : null,
      tooMuch ? `${money(total, t.currency)} handled (more than ${money(maxAmount, t.currency)})` : null,
    ].filter(Boolean);
    return {
      subject: agent,
      currency: t.currency,
      scope: '',
      windowStart: from,
      windowEnd: t.at,
      reason: `${what.join(' and ')} within ${duration(rule.windowSeconds)}`,
      figures: { operations: ops.length, total, maxOperations: rule.maxOperations, maxAmount },
      operations: tooMany ? ops : inCurrency,
    };
  }
}
