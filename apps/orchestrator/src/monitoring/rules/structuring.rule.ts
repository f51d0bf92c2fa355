import { Injectable } from '@nestjs/common';
import { amountIn, type MonitoringDocument } from './monitoring-document';
import {
  type Candidate,
  type MonitoredOperation,
  type MonitoringRule,
  type RuleContext,
  type RuleHit,
  SECOND,
  customerSideOf,
  duration,
  money,
  sum,
} from './monitoring-rule';

/**
 * STRUCTURING: one payer's operations each just under the amount that would be reported on its own
 * (within `nearThresholdPercent` of it), `minOperations` or more in the window, adding up to the
 * threshold or more. The payer is the one who sends a transfer, withdraws cash or brings cash to an
 * agent; agents themselves are judged by AGENT_VELOCITY, not here. Only a near-threshold operation
 * is a candidate: the others cannot complete the pattern.
 */
@Injectable()
export class StructuringRule implements MonitoringRule {
  readonly code = 'STRUCTURING' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.structuring.windowSeconds * SECOND;
  }

  candidates(t: MonitoredOperation, config: MonitoringDocument): Candidate[] {
    const rule = config.structuring;
    const payer = customerSideOf(t);
    if (!rule.enabled || !payer || payer.kind === 'AGENT' || !nearBand(config, t.currency)?.has(t.amount)) return [];
    return [{ subject: payer, history: { from: t.at - rule.windowSeconds * SECOND, side: 'either' } }];
  }

  evaluate(ctx: RuleContext): RuleHit | null {
    const rule = ctx.config.structuring;
    const t = ctx.trigger;
    const payer = ctx.subject;
    const band = nearBand(ctx.config, t.currency);
    if (!band) return null;
    const from = t.at - rule.windowSeconds * SECOND;
    const ops = ctx
      .history(from)
      .filter((op) => op.currency === t.currency && customerSideOf(op)?.userId === payer.userId && band.has(op.amount));
    const total = sum(ops);
    if (ops.length < rule.minOperations || total < band.threshold) return null;
    return {
      subject: payer,
      currency: t.currency,
      scope: '',
      windowStart: from,
      windowEnd: t.at,
      reason:
        `${ops.length} operations between ${money(band.floor, t.currency)} and ${money(band.threshold - 1, t.currency)} within ` +
        `${duration(rule.windowSeconds)}, ${money(total, t.currency)} in all: each under the ${money(band.threshold, t.currency)} reporting threshold, together above it`,
      figures: { operations: ops.length, total, threshold: band.threshold, nearFrom: band.floor },
      operations: ops,
    };
  }
}

/** The amounts "near" the reporting threshold in one currency, or null when the currency has no threshold. */
function nearBand(config: MonitoringDocument, currency: string): { floor: number; threshold: number; has(amount: number): boolean } | null {
  const threshold = amountIn(config.structuring.thresholds, currency);
  if (threshold === undefined) return null;
  const floor = Math.ceil((threshold * (100 - config.structuring.nearThresholdPercent)) / 100);
  return { floor, threshold, has: (amount) => amount >= floor && amount < threshold };
}
