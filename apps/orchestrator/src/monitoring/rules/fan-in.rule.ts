import { Injectable } from '@nestjs/common';
import type { MonitoringDocument } from './monitoring-document';
import { type MonitoringRule, type RuleContext, type RuleHit, SECOND, duration, money, sum } from './monitoring-rule';

/**
 * FAN_IN: many distinct payers converging on one recipient through transfers (a collection account,
 * a mule). Payers are persons, or the paying account when it has no person behind it. Merchants are
 * paid by many customers by design: they are judged only when `includeMerchants` is true; agents
 * never (they receive no transfers from customers, only cash-outs).
 */
@Injectable()
export class FanInRule implements MonitoringRule {
  readonly code = 'FAN_IN' as const;

  lookbackMs(config: MonitoringDocument): number {
    return config.fanIn.windowSeconds * SECOND;
  }

  evaluate(ctx: RuleContext): RuleHit[] {
    const rule = ctx.config.fanIn;
    const t = ctx.trigger;
    const recipient = t.destination;
    if (!rule.enabled || t.type !== 'TRANSFER' || !recipient || recipient.kind === 'AGENT') return [];
    if (recipient.kind === 'MERCHANT' && !rule.includeMerchants) return [];

    const from = t.at - rule.windowSeconds * SECOND;
    const received = ctx
      .operationsOf(recipient.userId, from)
      .filter(
        (op) =>
          op.type === 'TRANSFER' &&
          op.currency === t.currency &&
          op.destination?.userId === recipient.userId &&
          op.source?.userId !== recipient.userId,
      );
    const payers = new Set(received.map((op) => op.source?.userId ?? `account:${op.sourceAccountId}`));
    if (payers.size < rule.minDistinctPayers) return [];
    const total = sum(received);
    return [
      {
        subject: recipient,
        currency: t.currency,
        scope: '',
        windowStart: from,
        windowEnd: t.at,
        reason: `${payers.size} distinct payers sent ${received.length} transfers (${money(total, t.currency)}) to this ${recipient.kind.toLowerCase()} within ${duration(rule.windowSeconds)}`,
        figures: { distinctPayers: payers.size, transfers: received.length, total },
        operations: received,
      },
    ];
  }
}
