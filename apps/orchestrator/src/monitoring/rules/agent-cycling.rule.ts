import { Injectable } from '@nestjs/common';
import type { MonitoringDocument } from './monitoring-document';
import {
  type Candidate,
  type MonitoredOperation,
  type MonitoringRule,
  type RuleContext,
  type RuleHit,
  SECOND,
  agentOf,
  customerSideOf,
  duration,
  money,
  sum,
} from './monitoring-rule';

/**
 * AGENT_CYCLING: an agent cashing in and cashing out for the same customer, again and again (cash
 * turned into e-money and back, or commissions farmed). A cycle is one cash-in paired with one
 * cash-out between the same agent and customer within the window; `minCycles` of them is a hit. The
 * subject is the agent, the customer its scope: one alert per pair and window. Only the pair's
 * operations are read, not the agent's whole day.
 */
@Injectable()
export class AgentCyclingRule implements MonitoringRule {
  readonly code = 'AGENT_CYCLING' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.agentCycling.windowSeconds * SECOND;
  }

  candidates(t: MonitoredOperation, config: MonitoringDocument): Candidate[] {
    const rule = config.agentCycling;
    const agent = agentOf(t);
    const customer = customerSideOf(t);
    if (!rule.enabled || !agent || !customer || customer.kind === 'AGENT') return [];
    return [{ subject: agent, history: { from: t.at - rule.windowSeconds * SECOND, side: 'either', counterpart: customer.userId } }];
  }

  evaluate(ctx: RuleContext): RuleHit | null {
    const rule = ctx.config.agentCycling;
    const t = ctx.trigger;
    const agent = ctx.subject;
    const customer = customerSideOf(t);
    if (!customer) return null;

    const from = t.at - rule.windowSeconds * SECOND;
    const pair = ctx
      .history(from)
      .filter((op) => op.currency === t.currency && agentOf(op)?.userId === agent.userId && customerSideOf(op)?.userId === customer.userId);
    const cashIns = pair.filter((op) => op.type === 'CASH_IN');
    const cashOuts = pair.filter((op) => op.type === 'CASH_OUT');
    const cycles = Math.min(cashIns.length, cashOuts.length);
    if (cycles < rule.minCycles) return null;
    return {
      subject: agent,
      currency: t.currency,
      scope: customer.userId,
      windowStart: from,
      windowEnd: t.at,
      reason:
        `${cashIns.length} cash-ins (${money(sum(cashIns), t.currency)}) and ${cashOuts.length} cash-outs ` +
        `(${money(sum(cashOuts), t.currency)}) between this agent and customer ${customer.userId} within ${duration(rule.windowSeconds)}: ` +
        `${cycles} cycles, ${rule.minCycles} raise an alert`,
      figures: { cycles, cashIns: cashIns.length, cashOuts: cashOuts.length, customerUserId: customer.userId },
      operations: pair,
    };
  }
}
