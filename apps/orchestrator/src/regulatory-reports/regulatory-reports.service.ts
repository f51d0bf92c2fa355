import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import {
  type Currency,
  SUPPORTED_CURRENCIES,
  type RegulatoryOperationView,
  businessDayBounds,
  businessDayOf,
  isDayOver,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { isIsoInstant } from '@mm/platform';
import { CASE_FACTS, type CaseFactsSource } from '../monitoring/case-facts';
import { OrchestratorConfig } from '../orchestrator.config';
import { buildDailyContent } from './daily-report.builder';
import type { GenerateDailyReportBody } from './dto/generate-daily.body';
import type { ReportFilingBody, ReportSentBody, WrittenConfirmationBody } from './dto/lifecycle.bodies';
import type { ListReportsQuery } from './dto/report-queries';
import type { SuspicionReportBody } from './dto/suspicion-report.body';
import { PartyIdentities } from './party-identities';
import { ReportClock } from './report-clock';
import type { DailyReportContent, ReportContent, ReportKind, ReportParty } from './report-content';
import { dailyCsv, dailyHtml, suspicionCsv, suspicionHtml } from './report-documents';
import { RegulatoryLedgerClient } from './regulatory-ledger.client';
import type {
  RegulatoryReportDetailView,
  RegulatoryReportPageView,
  RegulatoryReportView,
  ReportVerificationView,
} from './regulatory-report.views';
import { type ReportRow, type ReportTrigger, RegulatoryReportsStore } from './regulatory-reports.store';
import { buildSuspicionContent, suspicionReference } from './suspicion-report.builder';

/** Who acts: a staff member (their user id and role), or the daily job (`system`, `SYSTEM`). */
export interface ReportActor {
  userId: string;
  role: string;
}

export const SYSTEM_ACTOR: ReportActor = { userId: 'system', role: 'SYSTEM' };

/** A declared time may run ahead of the server's clock by this much (another device's clock) before it is "in the future". */
const CLOCK_SKEW_MS = 5 * 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `day` can be reported at `now`: over in UTC+01:00 for at least `settleMs`. The ledger stamps
 * completed_at before its commit, so the last payments of a day become visible only a moment after
 * its end; a report made before they are would miss them for good (docs/regulatory-reports.md, "Days").
 */
export function isDaySettled(day: string, now: Date, settleMs: number): boolean {
  return isDayOver(day, new Date(now.getTime() - settleMs));
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The three stored texts of a content: canonical JSON, CSV and HTML. */
export function renderTexts(content: ReportContent): { content: string; csv: string; html: string } {
  const json = JSON.stringify(content);
  return content.format === 'mm.regulatory.daily-threshold.v1'
    ? { content: json, csv: dailyCsv(content), html: dailyHtml(content) }
    : { content: json, csv: suspicionCsv(content), html: suspicionHtml(content) };
}

/**
 * Regulatory reports (docs/regulatory-reports.md): generates the daily threshold report and
 * suspicion reports, stores each once with its hashes, records what happens to them afterwards
 * (filing, written confirmation, sending) as append-only events, and checks a stored report
 * against a fresh rebuild.
 */
@Injectable()
export class RegulatoryReportsService {
  constructor(
    private readonly store: RegulatoryReportsStore,
    private readonly ledger: RegulatoryLedgerClient,
    private readonly identities: PartyIdentities,
    private readonly clock: ReportClock,
    private readonly config: OrchestratorConfig,
    @Inject(CASE_FACTS) private readonly cases: CaseFactsSource,
  ) {}

  // --- daily threshold report ------------------------------------------------------------------

  /**
   * The daily report of a day that is over and settled: the stored one when there is one
   * (idempotent, `created` false), else built from the ledger and stored. Two concurrent generations
   * store one report and both answer it.
   */
  async generateDaily(
    day: string,
    actor: ReportActor,
    trigger: ReportTrigger,
  ): Promise<{ report: RegulatoryReportDetailView; created: boolean }> {
    if (!isDaySettled(day, this.clock.now(), this.config.REGULATORY_DAY_SETTLE_MS)) {
      const from = new Date(Date.parse(businessDayBounds(day).to) + this.config.REGULATORY_DAY_SETTLE_MS).toISOString();
      throw new AppException('REPORT_DAY_NOT_OVER', `the report of ${day} can be made from ${from}`);
    }
    const existing = await this.store.dailyOf(day);
    if (existing) return { report: await this.get(existing), created: false };
    const content = await this.buildDaily(day, this.config.regulatoryThresholds);
    const id = randomUUID();
    const created = await this.store.insert(this.store.db, {
      id,
      kind: 'DAILY_THRESHOLD',
      reference: content.reference,
      periodDate: day,
      caseId: null,
      ...this.hashed(content),
      operationCount: content.operations.length,
      generatedBy: actor.userId,
      generatedByRole: actor.role,
      trigger,
    });
    return { report: await this.get(created ? id : (await this.store.dailyOf(day))!), created };
  }

  generateDailyOnDemand(body: GenerateDailyReportBody, actor: ReportActor) {
    return this.generateDaily(body.date, actor, 'ON_DEMAND');
  }

  /** The content of `day`'s report with these thresholds, from the ledger and the orchestrator's records as they are now. */
  async buildDaily(day: string, thresholds: Record<Currency, number>): Promise<DailyReportContent> {
    const { from, to } = businessDayBounds(day);
    const operations: RegulatoryOperationView[] = [];
    for (const currency of SUPPORTED_CURRENCIES) {
      operations.push(...(await this.ledger.operations(currency, thresholds[currency], from, to)));
    }
    const party = await this.identities.resolver(operations.flatMap((op) => [op.source, op.destination]));
    return buildDailyContent(day, thresholds, operations, party);
  }

  // --- suspicion reports -----------------------------------------------------------------------

  /**
   * A suspicion report from a case, made by the officer the case is assigned to on the case version
   * they read: in one database transaction the case row is locked, its facts read under that lock,
   * the report built from them and stored, and the case closed with the decision SUSPICION_REPORT
   * (both or neither). An alert that comes meanwhile waits and opens a new case.
   */
  async suspicion(body: SuspicionReportBody, actor: ReportActor): Promise<RegulatoryReportDetailView> {
    const id = randomUUID();
    await this.store.db.transaction(async (tx) => {
      const closing = { caseId: body.caseId.toLowerCase(), expectedVersion: body.expectedVersion, reportId: id, actorId: actor.userId };
      await this.cases.closeWithSuspicionReport(tx, closing, async (facts) => {
        const now = this.clock.now();
        const subject = UUID.test(facts.subject.userId) ? await this.identities.subject(facts.subject.userId) : null;
        const party = await this.identities.resolver(
          [],
          facts.operations.flatMap((op) => [op.sourceAccountId, op.destinationAccountId]),
        );
        const content = buildSuspicionContent(
          facts,
          {
            reference: suspicionReference(businessDayOf(now), id),
            generatedAt: now.toISOString(),
            generatedBy: actor,
            grounds: body.grounds,
            narrative: body.narrative,
          },
          subject,
          party,
        );
        try {
          await this.store.insert(tx, {
            id,
            kind: 'SUSPICION',
            reference: content.reference,
            periodDate: businessDayOf(now),
            caseId: facts.caseId,
            ...this.hashed(content),
            operationCount: content.operations.length,
            generatedBy: actor.userId,
            generatedByRole: actor.role,
            trigger: 'ON_DEMAND',
          });
        } catch (error) {
          if ((error as { code?: string }).code === '23505') throw new AppException('CASE_ALREADY_REPORTED');
          throw error;
        }
      });
    });
    return this.get(id);
  }

  // --- what happens to a report afterwards -------------------------------------------------------

  /** A suspicion report filed by phone or electronically: its written confirmation is due 48 hours after `filedAt`. */
  file(id: string, body: ReportFilingBody, actor: ReportActor): Promise<RegulatoryReportDetailView> {
    return this.record(id, (row) => {
      requireKind(row, 'SUSPICION', 'only a suspicion report is filed by phone or electronically (a daily report is marked sent)');
      if (row.state !== 'GENERATED') throw new AppException('REPORT_STATE_CONFLICT', `the report is ${row.state}: it was filed already`);
      const at = this.declared(body.filedAt, 'filedAt', row);
      return { event: 'FILED', actor, channel: body.channel, externalReference: null, note: body.note ?? null, occurredAt: at };
    });
  }

  /** The written confirmation of a suspicion report (after a filing, or as its first and only sending). */
  confirmInWriting(id: string, body: WrittenConfirmationBody, actor: ReportActor): Promise<RegulatoryReportDetailView> {
    return this.record(id, (row) => {
      requireKind(row, 'SUSPICION', 'only a suspicion report is confirmed in writing (a daily report is marked sent)');
      if (row.state === 'CONFIRMED') throw new AppException('REPORT_STATE_CONFLICT', 'the report was confirmed in writing already');
      const at = this.declared(body.sentAt, 'sentAt', row);
      if (row.f_at && at.getTime() < new Date(row.f_at).getTime()) throw new AppException('REPORT_TIME_BEFORE_FILING');
      return {
        event: 'WRITTEN_CONFIRMATION',
        actor,
        channel: null,
        externalReference: body.reference,
        note: body.note ?? null,
        occurredAt: at,
      };
    });
  }

  /** A daily report sent to the financial intelligence unit. */
  markSent(id: string, body: ReportSentBody, actor: ReportActor): Promise<RegulatoryReportDetailView> {
    return this.record(id, (row) => {
      requireKind(row, 'DAILY_THRESHOLD', 'a suspicion report is filed and confirmed in writing, not marked sent');
      if (row.state !== 'GENERATED') throw new AppException('REPORT_STATE_CONFLICT', 'the report was sent already');
      const at = this.declared(body.sentAt, 'sentAt', row);
      return { event: 'SENT', actor, channel: body.channel, externalReference: body.reference ?? null, note: null, occurredAt: at };
    });
  }

  private async record(
    id: string,
    decide: (row: ReportRow) => {
      event: 'FILED' | 'WRITTEN_CONFIRMATION' | 'SENT';
      actor: ReportActor;
      channel: string | null;
      externalReference: string | null;
      note: string | null;
      occurredAt: Date;
    },
  ): Promise<RegulatoryReportDetailView> {
    await this.store.db.transaction(async (tx) => {
      await this.store.lock(tx, id);
      const row = await this.store.get(id, this.clock.now(), this.config.REGULATORY_CONFIRMATION_DUE_SOON_HOURS, tx);
      if (!row) throw new AppException('REPORT_NOT_FOUND');
      const e = decide(row);
      await this.store.addEvent(tx, { reportId: id, ...e, actorId: e.actor.userId, actorRole: e.actor.role, recordedAt: this.clock.now() });
    });
    return this.get(id);
  }

  /**
   * A time the officer declares, or now: never in the future (beyond CLOCK_SKEW_MS) and never before
   * the report was made. Within those bounds it may be earlier than now (a phone call recorded an
   * hour later); the event's recorded time is the server's, and a step recorded after its deadline
   * is `late` whatever time it declares.
   */
  private declared(value: string | undefined, field: string, row: ReportRow): Date {
    const now = this.clock.now();
    if (value === undefined) return now;
    const at = new Date(value);
    if (at.getTime() > now.getTime() + CLOCK_SKEW_MS) {
      throw new AppException('REPORT_TIME_IN_FUTURE', `${field} is in the future`, {
        errors: [{ field, code: 'REPORT_TIME_IN_FUTURE', message: 'is in the future' }],
      });
    }
    const generatedAt = new Date(row.generated_at);
    if (at.getTime() < generatedAt.getTime()) {
      throw new AppException('REPORT_TIME_BEFORE_GENERATION', `${field} is before the report was made (${generatedAt.toISOString()})`, {
        errors: [{ field, code: 'REPORT_TIME_BEFORE_GENERATION', message: `is before ${generatedAt.toISOString()}` }],
      });
    }
    return at;
  }

  // --- reads -------------------------------------------------------------------------------------

  async get(id: string): Promise<RegulatoryReportDetailView> {
    const [row, docs] = await Promise.all([
      this.store.get(id, this.clock.now(), this.config.REGULATORY_CONFIRMATION_DUE_SOON_HOURS),
      this.store.documents(id),
    ]);
    if (!row || !docs) throw new AppException('REPORT_NOT_FOUND');
    return { ...toView(row), content: JSON.parse(docs.content) as Record<string, unknown> };
  }

  async list(query: ListReportsQuery): Promise<RegulatoryReportPageView> {
    let before: [string, string] | undefined;
    if (query.cursor !== undefined) {
      const decoded = decodeCursor(query.cursor);
      if (!decoded) {
        throw new AppException('VALIDATION_ERROR', 'cursor: not a cursor this API issued', {
          errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'not a cursor this API issued' }],
        });
      }
      before = decoded;
    }
    const limit = query.limit ?? 50;
    const rows = await this.store.list(
      {
        kind: query.kind,
        state: query.state,
        dateFrom: query.dateFrom,
        dateTo: query.dateTo,
        deadline: query.deadline,
        before,
        limit: limit + 1,
      },
      this.clock.now(),
      this.config.REGULATORY_CONFIRMATION_DUE_SOON_HOURS,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(toView), nextCursor: rows.length > limit ? encodeCursor(last.generated_at, last.id) : null };
  }

  /** The stored CSV or HTML, byte for byte as generated. */
  async document(id: string, format: 'csv' | 'html'): Promise<{ body: string; sha256: string; filename: string }> {
    const docs = await this.store.documents(id);
    if (!docs) throw new AppException('REPORT_NOT_FOUND');
    return format === 'csv'
      ? { body: docs.csv, sha256: docs.csv_sha256, filename: `${docs.reference}.csv` }
      : { body: docs.html, sha256: docs.html_sha256, filename: `${docs.reference}.html` };
  }

  /**
   * Checks a stored report: its texts against their hashes and the stored content against a fresh
   * rendering of the CSV and HTML; then, for a daily report, the content against a rebuild from the
   * ledger with the thresholds the report states (the configuration may have changed since). Only
   * the operations part must be the same: the parties' names, phones, roles, KYC tiers and agent
   * codes are the orchestrator's records, which move on, so they are listed as identity drift.
   */
  async verify(id: string): Promise<ReportVerificationView> {
    const docs = await this.store.documents(id);
    if (!docs) throw new AppException('REPORT_NOT_FOUND');
    const stored = JSON.parse(docs.content) as ReportContent;
    const rendered = renderTexts(stored);
    const storedIntact =
      sha256(docs.content) === docs.content_sha256 &&
      sha256(docs.csv) === docs.csv_sha256 &&
      sha256(docs.html) === docs.html_sha256 &&
      rendered.content === docs.content &&
      rendered.csv === docs.csv &&
      rendered.html === docs.html;
    if (stored.format !== 'mm.regulatory.daily-threshold.v1') {
      return {
        reportId: id,
        storedIntact,
        identical: storedIntact,
        storedSha256: docs.content_sha256,
        recomputedSha256: sha256(rendered.content),
        storedOperationsSha256: docs.content_sha256,
        recomputedOperationsSha256: sha256(rendered.content),
        differences: { added: [], removed: [], changed: [] },
        identityDrift: [],
      };
    }
    const thresholds = Object.fromEntries(stored.thresholds.map((t) => [t.currency, t.minAmount])) as Record<Currency, number>;
    const fresh = await this.buildDaily(stored.reportDate, thresholds);
    const storedPart = sha256(JSON.stringify(operationsPart(stored)));
    const freshPart = sha256(JSON.stringify(operationsPart(fresh)));
    return {
      reportId: id,
      storedIntact,
      identical: storedIntact && storedPart === freshPart,
      storedSha256: docs.content_sha256,
      recomputedSha256: sha256(JSON.stringify(fresh)),
      storedOperationsSha256: storedPart,
      recomputedOperationsSha256: freshPart,
      differences: differences(stored, fresh),
      identityDrift: identityDrift(stored, fresh),
    };
  }

  private hashed(content: ReportContent) {
    const texts = renderTexts(content);
    return {
      content: texts.content,
      contentSha256: sha256(texts.content),
      csv: texts.csv,
      csvSha256: sha256(texts.csv),
      html: texts.html,
      htmlSha256: sha256(texts.html),
    };
  }
}

function requireKind(row: ReportRow, kind: ReportKind, message: string): void {
  if (row.kind !== kind) throw new AppException('REPORT_KIND_MISMATCH', message);
}

/** A party as the ledger states it: its account and the account's type, nothing the orchestrator's records may change. */
const ledgerSide = (p: ReportParty) => ({ accountId: p.accountId, accountType: p.accountType });
const DRIFTING = ['role', 'name', 'phone', 'kycTier', 'agentCode'] as const satisfies readonly (keyof ReportParty)[];

/** What a daily report says from the ledger alone: the content with each party cut down to its account. */
export function operationsPart(c: DailyReportContent): DailyReportContent {
  return {
    ...c,
    operations: c.operations.map((op) => ({
      ...op,
      source: ledgerSide(op.source) as ReportParty,
      destination: ledgerSide(op.destination) as ReportParty,
    })),
  };
}

function identityDrift(stored: DailyReportContent, fresh: DailyReportContent): ReportVerificationView['identityDrift'] {
  const now = new Map(fresh.operations.map((op) => [op.reference, op]));
  return stored.operations.flatMap((op) =>
    (['source', 'destination'] as const).flatMap((party) => {
      const later = now.get(op.reference)?.[party];
      if (!later || later.accountId !== op[party].accountId) return [];
      const fields = DRIFTING.filter((f) => op[party][f] !== later[f]);
      return fields.length ? [{ reference: op.reference, party, accountId: op[party].accountId, fields: [...fields] }] : [];
    }),
  );
}

function differences(stored: DailyReportContent, fresh: DailyReportContent): ReportVerificationView['differences'] {
  const before = new Map(operationsPart(stored).operations.map((op) => [op.reference, JSON.stringify(op)]));
  const after = new Map(operationsPart(fresh).operations.map((op) => [op.reference, JSON.stringify(op)]));
  return {
    added: [...after.keys()].filter((r) => !before.has(r)),
    removed: [...before.keys()].filter((r) => !after.has(r)),
    changed: [...after.keys()].filter((r) => before.has(r) && before.get(r) !== after.get(r)),
  };
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export function toView(r: ReportRow): RegulatoryReportView {
  return {
    id: r.id,
    kind: r.kind,
    reference: r.reference,
    state: r.state,
    periodDate: r.period_date,
    caseId: r.case_id,
    operationCount: r.operation_count,
    generatedAt: iso(r.generated_at)!,
    generatedBy: r.generated_by,
    generatedByRole: r.generated_by_role,
    trigger: r.trigger,
    contentSha256: r.content_sha256,
    csvSha256: r.csv_sha256,
    htmlSha256: r.html_sha256,
    filing: r.f_at
      ? { channel: r.f_channel!, filedAt: iso(r.f_at)!, filedBy: r.f_by!, recordedAt: iso(r.f_rec)!, late: r.f_late === true }
      : null,
    writtenConfirmation: r.w_at
      ? { sentAt: iso(r.w_at)!, sentBy: r.w_by!, reference: r.w_ref!, recordedAt: iso(r.w_rec)!, late: r.w_late === true }
      : null,
    sent: r.s_at ? { channel: r.s_channel!, sentAt: iso(r.s_at)!, sentBy: r.s_by!, reference: r.s_ref, recordedAt: iso(r.s_rec)! } : null,
    deadline: r.deadline,
    filingDueAt: r.kind === 'SUSPICION' ? iso(r.filing_due_at) : null,
    confirmationDueAt: r.deadline === 'WRITTEN_CONFIRMATION' ? iso(r.due_at) : null,
    overdue: r.overdue,
    dueSoon: r.due_soon,
    alertsRaised: r.alerts,
  };
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${new Date(at).toISOString()}|${id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): [string, string] | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // isIsoInstant: the shape alone lets a month 13 or a February 30 through to PostgreSQL, a 500 there
  return match && isIsoInstant(match[1]) && UUID.test(match[2]) ? [match[1], match[2]] : null;
}
