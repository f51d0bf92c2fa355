import { Injectable } from '@nestjs/common';
import { amountIn, type MonitoringDocument } from './monitoring-document';
import { type MonitoringRule, type RuleContext, type RuleHit, SECOND, customerSideOf, duration, money, sum } from './monitoring-rule';

/**
 * STRUCTURING: one payer's operations each just under the amount that would be reported on its own
 * (within `nearThresholdPercent` of it), `minOperations` or more in the window, adding up to the
 * threshold or more. The payer is the one who sends a transfer, withdraws cash or brings cash to an
 * agent; agents themselves are judged by AGENT_VELOCITY, not here.
 */
@Injectable()
export class StructuringRule implements MonitoringRule {
  readonly code = 'STRUCTURING' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.structuring.windowSeconds * SECOND;
  }

  evaluate(ctx: RuleContext): RuleHit[] {
    const rule = ctx.config.structuring;
    const t = ctx.trigger;
    const payer = customerSideOf(t);
    const threshold = amountIn(rule.thresholds, t.currency);
    if (!rule.enabled || !payer || payer.kind === 'AGENT' || threshold === undefined) return [];
    const floor = Math.ceil((threshold * (100 - rule.nearThresholdPercent)) / 100);
    const near = (amount: number) => amount >= floor && amount < threshold;
    if (!near(t.amount)) return [];

    const from = t.at - rule.windowSeconds * SECOND;
    const ops = ctx
      .operationsOf(payer.userId, from)
      .filter((op) => op.currency === t.currency && customerSideOf(op)?.userId === payer.userId && near(op.amount));
    const total = sum(ops);
    if (ops.length < rule.minOperations || total < threshold) return [];
    return [
      {
        subject: payer,
        currency: t.currency,
        scope: '',
        windowStart: from,
        windowEnd: t.at,
        reason:
          `${ops.length} operations between ${money(floor, t.currency)} and ${money(threshold - 1, t.currency)} within ` +
          `${duration(rule.windowSeconds)}, ${money(total, t.currency)} in all: each under the ${money(threshold, t.currency)} reporting threshold, together above it`,
        figures: { operations: ops.length, total, threshold, nearFrom: floor },
        operations: ops,
      },
    ];
  }
}
