import { api, ok } from '../api/client';
import type { components } from '../api/schema';

/**
 * The home page's figures, each from the routes an operator already has: no summary route exists,
 * so each is counted from pages of a list, up to a cap (and says when it stopped there).
 */
export interface Counted<T> {
  value: T;
  /** the cap was reached: the value is at least this */
  capped: boolean;
}

const PAGE_CAP = 10;

async function collect<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<Counted<T[]>> {
  let items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < PAGE_CAP; i++) {
    const answer = await page(cursor);
    items = items.concat(answer.items);
    if (!answer.nextCursor) return { value: items, capped: false };
    cursor = answer.nextCursor;
  }
  return { value: items, capped: true };
}

export interface Volume {
  currency: string;
  count: number;
  amount: number;
  fees: number;
}

/** Succeeded operations since local midnight, summed per currency. */
export async function volumesToday(): Promise<Counted<Volume[]>> {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const operations = await collect((cursor) =>
    ok(
      api.GET('/api/backoffice/transactions', {
        params: { query: { status: 'SUCCEEDED', from: midnight.toISOString(), cursor, limit: 100 } },
      }),
    ),
  );
  const byCurrency = new Map<string, Volume>();
  for (const o of operations.value) {
    const v = byCurrency.get(o.currency) ?? { currency: o.currency, count: 0, amount: 0, fees: 0 };
    v.count += 1;
    v.amount += o.amount;
    v.fees += o.fee ?? 0;
    byCurrency.set(o.currency, v);
  }
  return { value: [...byCurrency.values()], capped: operations.capped };
}

export async function approvalsWaiting(): Promise<Counted<number>> {
  const pending = await collect((cursor) =>
    ok(api.GET('/api/backoffice/approvals', { params: { query: { status: 'PENDING', cursor, limit: 100 } } })),
  );
  return { value: pending.value.length, capped: pending.capped };
}

type WorkflowState = NonNullable<components['schemas']['WorkflowView']['state']>;
const UNFINISHED: WorkflowState[] = ['running', 'compensating', 'compensation_failed'];

/** Registrations and PIN resets still running, being compensated, or whose compensation failed. */
export async function unfinishedWorkflows(): Promise<Counted<Partial<Record<WorkflowState, number>>>> {
  const counts: Partial<Record<WorkflowState, number>> = {};
  let capped = false;
  for (const state of UNFINISHED) {
    const found = await collect((cursor) =>
      ok(
        api.GET('/api/backoffice/workflows', {
          params: { query: { state: state as 'running' | 'compensating' | 'compensation_failed', cursor, limit: 100 } },
        }),
      ),
    );
    counts[state] = found.value.length;
    capped ||= found.capped;
  }
  return { value: counts, capped };
}

export interface HeldWebhooks {
  integrationId: string;
  name: string;
  mode: string;
  held: number;
  status: string;
}

/** Endpoints holding events (disabled after failures), over the partners' integrations. */
export async function heldWebhooks(): Promise<Counted<HeldWebhooks[]>> {
  const integrations = await collect(async (cursor) => {
    const page = await ok(api.GET('/api/backoffice/partners/integrations', { params: { query: { cursor, limit: 100 } } }));
    return { items: page.data, nextCursor: page.nextCursor };
  });
  const held: HeldWebhooks[] = [];
  for (const integration of integrations.value) {
    const endpoints = await ok(
      api.GET('/api/backoffice/webhooks/integrations/{integrationId}/endpoints', { params: { path: { integrationId: integration.id } } }),
    );
    for (const e of endpoints)
      if (e.held > 0 || e.status === 'disabled')
        held.push({ integrationId: integration.id, name: integration.name, mode: e.mode, held: e.held, status: e.status });
  }
  return { value: held, capped: integrations.capped };
}

/** Cases not closed yet (open, in review, or waiting for a freeze's approval). */
export async function casesNotClosed(): Promise<Counted<number>> {
  let total = 0;
  let capped = false;
  for (const status of ['OPEN', 'IN_REVIEW', 'DECISION_PENDING'] as const) {
    const cases = await collect((cursor) => ok(api.GET('/api/v1/compliance/cases', { params: { query: { status, cursor, limit: 100 } } })));
    total += cases.value.length;
    capped ||= cases.capped;
  }
  return { value: total, capped };
}

/** Filed suspicion reports whose written confirmation is overdue (more than 48 hours after filing). */
export async function reportsOverdue(): Promise<Counted<number>> {
  const reports = await collect((cursor) =>
    ok(api.GET('/api/v1/compliance/reports', { params: { query: { deadline: 'OVERDUE', cursor, limit: 200 } } })),
  );
  return { value: reports.value.length, capped: reports.capped };
}

/** Reconciliation alerts not resolved yet (the route lists the latest 200 of a status, without pages). */
export async function reconciliationAlertsUnresolved(): Promise<Counted<number>> {
  let total = 0;
  let capped = false;
  for (const status of ['OPEN', 'ACKNOWLEDGED'] as const) {
    const alerts = await ok(api.GET('/api/v1/compliance/reconciliation/alerts', { params: { query: { status, limit: 200 } } }));
    total += alerts.length;
    capped ||= alerts.length === 200;
  }
  return { value: total, capped };
}
