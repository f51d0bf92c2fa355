import { Injectable } from '@nestjs/common';
import { amountIn, type MonitoringDocument } from './monitoring-document';
import {
  type Candidate,
  type MonitoredOperation,
  type MonitoringRule,
  type RuleContext,
  type RuleHit,
  SECOND,
  duration,
  money,
  sum,
} from './monitoring-rule';

/**
 * PASS_THROUGH: an account used as a conduit. Judged when money leaves a customer or a merchant (a
 * transfer sent, a cash-out): over the window, what came in (at least `minAmountIn`) against what
 * went out since the first of those arrivals; `minOutSharePercent` or more sent on is a hit. Agents
 * are not judged: their float passes money through by design.
 */
@Injectable()
export class PassThroughRule implements MonitoringRule {
  readonly code = 'PASS_THROUGH' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.passThrough.windowSeconds * SECOND;
  }

  candidates(t: MonitoredOperation, config: MonitoringDocument): Candidate[] {
    const rule = config.passThrough;
    const holder = t.source;
    if (!rule.enabled || !holder || holder.kind === 'AGENT' || amountIn(rule.minAmountIn, t.currency) === undefined) return [];
    // leaving money to oneself (two accounts of one person) is not sending it on
    if (t.destination?.userId === holder.userId) return [];
    return [{ subject: holder, history: { from: t.at - rule.windowSeconds * SECOND, side: 'either' } }];
  }

  evaluate(ctx: RuleContext): RuleHit | null {
    const rule = ctx.config.passThrough;
    const t = ctx.trigger;
    const holder = ctx.subject;
    const minIn = amountIn(rule.minAmountIn, t.currency);
    if (minIn === undefined) return null;

    const from = t.at - rule.windowSeconds * SECOND;
    const ops = ctx.history(from).filter((op) => op.currency === t.currency);
    const ins = ops.filter((op) => op.destination?.userId === holder.userId && op.source?.userId !== holder.userId);
    const totalIn = sum(ins);
    if (ins.length === 0 || totalIn < minIn) return null;
    const firstIn = ins[0].at;
    const outs = ops.filter((op) => op.source?.userId === holder.userId && op.destination?.userId !== holder.userId && op.at >= firstIn);
    const totalOut = sum(outs);
    if (totalOut * 100 < totalIn * rule.minOutSharePercent) return null;
    const share = Math.floor((totalOut * 100) / totalIn);
    return {
      subject: holder,
      currency: t.currency,
      scope: '',
      windowStart: from,
      windowEnd: t.at,
      reason:
        `${money(totalIn, t.currency)} received and ${money(totalOut, t.currency)} sent on (${share}%) within ` +
        `${duration(rule.windowSeconds)}: at least ${rule.minOutSharePercent}% of what came in left again`,
      figures: { totalIn, totalOut, sharePercent: share, operationsIn: ins.length, operationsOut: outs.length },
      operations: [...ins, ...outs].sort((a, b) => a.at - b.at || a.eventId.localeCompare(b.eventId)),
    };
  }
}
