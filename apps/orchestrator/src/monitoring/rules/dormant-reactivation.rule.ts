import { Injectable } from '@nestjs/common';
import { amountIn } from './monitoring-document';
import { DAY, type MonitoringRule, type Party, type RuleContext, type RuleHit, money } from './monitoring-rule';

/**
 * DORMANT_REACTIVATION: a customer or merchant with no operation for `dormantDays`, on either side,
 * then one of `minAmount` or more (sent or received). The last activity is the person's latest
 * operation the feed holds; a person the feed has never seen counts from their registration, but
 * only once the feed itself has run for `dormantDays` (before that, "never seen" may just mean
 * "active before monitoring started").
 */
@Injectable()
export class DormantReactivationRule implements MonitoringRule {
  readonly code = 'DORMANT_REACTIVATION' as const;

  /** The history it needs is the last activity, which the context answers without a window. */
  lookbackMs(): number {
    return 0;
  }

  evaluate(ctx: RuleContext): RuleHit[] {
    const rule = ctx.config.dormantReactivation;
    const t = ctx.trigger;
    const min = amountIn(rule.minAmount, t.currency);
    if (!rule.enabled || min === undefined || t.amount < min) return [];
    const dormantMs = rule.dormantDays * DAY;
    const hits: RuleHit[] = [];
    const parties = [t.source, t.destination].filter((p): p is Party => p !== null && p.kind !== 'AGENT');
    for (const party of new Map(parties.map((p) => [p.userId, p])).values()) {
      const since = this.quietSince(ctx, party.userId, dormantMs);
      if (since === null || t.at - since < dormantMs) continue;
      const days = Math.floor((t.at - since) / DAY);
      hits.push({
        subject: party,
        currency: t.currency,
        scope: '',
        windowStart: since,
        windowEnd: t.at,
        reason: `No operation for ${days} days (dormant after ${rule.dormantDays}), then ${money(t.amount, t.currency)} ${
          t.source?.userId === party.userId ? 'sent' : 'received'
        }`,
        figures: { quietDays: days, amount: t.amount, lastActivity: new Date(since).toISOString() },
        operations: [t],
      });
    }
    return hits;
  }

  /** Since when the person has been quiet, or null when that cannot be told. */
  private quietSince(ctx: RuleContext, userId: string, dormantMs: number): number | null {
    const last = ctx.lastActivityBefore(userId);
    if (last !== null) return last;
    const registered = ctx.registeredAt(userId);
    const feed = ctx.feedStartedAt;
    if (registered === null || feed === null || ctx.trigger.at - feed < dormantMs) return null;
    return Math.max(registered, feed);
  }
}
