import { Injectable } from '@nestjs/common';
import { amountIn } from './monitoring-document';
import type { MonitoringDocument } from './monitoring-document';
import {
  type Candidate,
  DAY,
  type MonitoredOperation,
  type MonitoringRule,
  type Party,
  type RuleContext,
  type RuleHit,
  money,
} from './monitoring-rule';

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

  /** It reads no window, only the last activity before the trigger: an operation stored late cannot wake anyone after it. */
  lookbackMs(): number {
    return 0;
  }

  candidates(t: MonitoredOperation, config: MonitoringDocument): Candidate[] {
    const rule = config.dormantReactivation;
    const min = amountIn(rule.minAmount, t.currency);
    if (!rule.enabled || min === undefined || t.amount < min) return [];
    const parties = [t.source, t.destination].filter((p): p is Party => p !== null && p.kind !== 'AGENT');
    return [...new Map(parties.map((p) => [p.userId, p])).values()].map((subject) => ({ subject, lastActivity: true }));
  }

  evaluate(ctx: RuleContext): RuleHit | null {
    const rule = ctx.config.dormantReactivation;
    const t = ctx.trigger;
    const party = ctx.subject;
    const dormantMs = rule.dormantDays * DAY;
    const since = this.quietSince(ctx, dormantMs);
    if (since === null || t.at - since < dormantMs) return null;
    const days = Math.floor((t.at - since) / DAY);
    return {
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
    };
  }

  /** Since when the subject has been quiet, or null when that cannot be told. */
  private quietSince(ctx: RuleContext, dormantMs: number): number | null {
    const last = ctx.lastActivityBefore();
    if (last !== null) return last;
    const registered = ctx.registeredAt();
    const feed = ctx.feedStartedAt;
    if (registered === null || feed === null || ctx.trigger.at - feed < dormantMs) return null;
    return Math.max(registered, feed);
  }
}
