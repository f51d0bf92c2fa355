import { Injectable } from '@nestjs/common';
import type { MonitoringDocument } from './monitoring-document';
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
 * FAN_IN: many distinct payers converging on one recipient through transfers (a collection account,
 * a mule). Payers are persons, or the paying account when it has no person behind it. Merchants are
 * paid by many customers by design: they are judged (and their takings read) only when
 * `includeMerchants` is true; agents never (they receive no transfers from customers, only cash-outs).
 */
@Injectable()
export class FanInRule implements MonitoringRule {
  readonly code = 'FAN_IN' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.fanIn.windowSeconds * SECOND;
  }

  candidates(t: MonitoredOperation, config: MonitoringDocument): Candidate[] {
    const rule = config.fanIn;
    const recipient = t.destination;
    if (!rule.enabled || t.type !== 'TRANSFER' || !recipient || recipient.kind === 'AGENT') return [];
    if (recipient.kind === 'MERCHANT' && !rule.includeMerchants) return [];
    if (t.source?.userId === recipient.userId) return [];
    return [{ subject: recipient, history: { from: t.at - rule.windowSeconds * SECOND, side: 'destination' } }];
  }

  evaluate(ctx: RuleContext): RuleHit | null {
    const rule = ctx.config.fanIn;
    const t = ctx.trigger;
    const recipient = ctx.subject;
    const from = t.at - rule.windowSeconds * SECOND;
    const received = ctx
      .history(from)
      .filter(
        (op) =>
          op.type === 'TRANSFER' &&
          op.currency === t.currency &&
          op.destination?.userId === recipient.userId &&
          op.source?.userId !== recipient.userId,
      );
    const payers = new Set(received.map((op) => op.source?.userId ?? `account:${op.sourceAccountId}`));
    if (payers.size < rule.minDistinctPayers) return null;
    const total = sum(received);
    return {
      subject: recipient,
      currency: t.currency,
      scope: '',
      windowStart: from,
      windowEnd: t.at,
      reason: `${payers.size} distinct payers sent ${received.length} transfers (${money(total, t.currency)}) to this ${recipient.kind.toLowerCase()} within ${duration(rule.windowSeconds)}`,
      figures: { distinctPayers: payers.size, transfers: received.length, total },
      operations: received,
    };
  }
}
