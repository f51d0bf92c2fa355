import { CATEGORY_TITLES, type DailyReportContent, type ReportParty, type SuspicionReportContent, alertListing } from './report-content';

/*
 * The exported documents of a report, rendered from its stored content only (never from the clock
 * or the database), so the same content always gives the same bytes.
 *
 * CSV (docs/regulatory-reports.md "Content, CSV and printable document"): RFC 4180, UTF-8 without BOM, CRLF line ends, a header row
 * always present, amounts as plain integers in the smallest unit, times in UTC. Every text cell that
 * a spreadsheet would read as a formula (it starts with =, +, -, @, a tab or a carriage return) is
 * prefixed with an apostrophe: names, but also phones, KYC tiers, agent codes and references, which
 * come from records an attacker may have shaped. An E.164 phone (+237…) therefore reads '+237… in
 * the file, which a spreadsheet keeps as text instead of turning it into the number 237…
 * (docs/regulatory-reports.md "Content, CSV and printable document"). Numbers (amounts, fees) are written as they are.
 *
 * HTML: one self-contained page (inline CSS with print rules, A4; no script, image, font or link to
 * fetch), every value escaped.
 */

const PARTY_COLUMNS = ['account_id', 'role', 'name', 'phone', 'kyc_tier', 'agent_code'];

export const DAILY_CSV_COLUMNS = [
  'report_reference',
  'report_date',
  'category',
  'operation_type',
  'reference',
  'transaction_id',
  'completed_at_utc',
  'amount',
  'fee',
  'currency',
  ...PARTY_COLUMNS.map((c) => `source_${c}`),
  ...PARTY_COLUMNS.map((c) => `destination_${c}`),
] as const;

export const SUSPICION_CSV_COLUMNS = [
  'report_reference',
  'case_reference',
  'subject_user_id',
  'subject_name',
  'subject_phone',
  'reference',
  'transaction_id',
  'operation_type',
  'occurred_at_utc',
  'amount',
  'currency',
  ...PARTY_COLUMNS.map((c) => `source_${c}`),
  ...PARTY_COLUMNS.map((c) => `destination_${c}`),
  'alert_rules',
  'alert_operations',
] as const;

type Cell = string | number | null;

/** A text cell with the formula guard. */
function text(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(value: Cell): string {
  const s = value === null ? '' : typeof value === 'string' ? text(value) : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function csv(header: readonly string[], rows: Cell[][]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

function partyCells(p: ReportParty): Cell[] {
  return [p.accountId, p.role, p.name, p.phone, p.kycTier, p.agentCode];
}

export function dailyCsv(c: DailyReportContent): string {
  return csv(
    DAILY_CSV_COLUMNS,
    c.operations.map((op) => [
      c.reference,
      c.reportDate,
      op.category,
      op.type,
      op.reference,
      op.transactionId,
      op.completedAt,
      op.amount,
      op.fee,
      op.currency,
      ...partyCells(op.source),
      ...partyCells(op.destination),
    ]),
  );
}

export function suspicionCsv(c: SuspicionReportContent): string {
  return csv(
    SUSPICION_CSV_COLUMNS,
    c.operations.map((op) => [
      c.reference,
      c.case.reference,
      c.subject.userId,
      c.subject.name,
      c.subject.phone,
      op.reference,
      op.transactionId,
      op.type,
      op.occurredAt,
      op.amount,
      op.currency,
      ...partyCells(op.source),
      ...partyCells(op.destination),
      op.alertRules.join(';'),
      alertsListing(c, op.reference),
    ]),
  );
}

/**
 * For each alert naming the operation, how much of that alert's operations the report lists
 * ("FAN_IN: 211 operations, 200 listed, including the one that raised the alert"), `;`-separated:
 * a file cut from a truncated alert must not read as all of it.
 */
function alertsListing(c: SuspicionReportContent, reference: string): string {
  const listings = c.alerts.filter((a) => a.transactionReferences.includes(reference)).map((a) => `${a.rule}: ${alertListing(a)}`);
  return [...new Set(listings)].join(';');
}

// ---------------------------------------------------------------------------------------------
// Printable HTML
// ---------------------------------------------------------------------------------------------

export function escapeHtml(value: string | number | null): string {
  if (value === null) return '—';
  return String(value).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** 6000000 → "6 000 000" (a thin grouping space, as amounts are printed in CEMAC documents). */
function money(amount: number | string): string {
  return String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}

const STYLE = `
  @page { size: A4 landscape; margin: 12mm; }
  * { box-sizing: border-box; }
  body { font-family: "Helvetica Neue", Arial, sans-serif; font-size: 10pt; color: #111; margin: 0; padding: 16px; }
  h1 { font-size: 16pt; margin: 0 0 4px; }
  h2 { font-size: 12pt; margin: 18px 0 6px; border-bottom: 1px solid #444; }
  dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 8px 0; }
  dt { font-weight: bold; }
  dd { margin: 0; }
  table { border-collapse: collapse; width: 100%; margin: 6px 0; }
  th, td { border: 1px solid #999; padding: 3px 5px; text-align: left; vertical-align: top; }
  th { background: #eee; }
  td.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
  p.narrative { white-space: pre-wrap; border: 1px solid #999; padding: 8px; }
  .muted { color: #555; }
  @media print {
    body { padding: 0; }
    th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
    tr, dl, p.narrative { page-break-inside: avoid; }
    thead { display: table-header-group; }
  }`;

function page(title: string, body: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<title>${escapeHtml(title)}</title>\n<style>${STYLE}\n</style>\n</head>\n<body>\n${body}</body>\n</html>\n`
  );
}

function definitions(items: [string, string | number | null][]): string {
  return `<dl>${items.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>\n`;
}

function partyHtml(p: ReportParty): string {
  const detail = [p.role, p.phone, p.kycTier, p.agentCode]
    .filter((v): v is string => !!v)
    .map(escapeHtml)
    .join(' · ');
  return `${escapeHtml(p.name)}<br><span class="muted">${detail}</span><br><span class="muted">${escapeHtml(p.accountId)}</span>`;
}

function totalsHtml(totals: { currency: string; count: number; amount: string }[]): string {
  if (totals.length === 0) return '<p class="muted">No operation.</p>\n';
  return (
    '<table><thead><tr><th>Currency</th><th>Operations</th><th>Total amount</th></tr></thead><tbody>' +
    totals
      .map((t) => `<tr><td>${escapeHtml(t.currency)}</td><td class="n">${t.count}</td><td class="n">${money(t.amount)}</td></tr>`)
      .join('') +
    '</tbody></table>\n'
  );
}

export function dailyHtml(c: DailyReportContent): string {
  let body =
    `<h1>Daily threshold report ${escapeHtml(c.reportDate)}</h1>\n` +
    definitions([
      ['Report', c.reference],
      ['Day', `${c.reportDate} (${c.timeZone})`],
      ['Window (UTC)', `${c.window.from} to ${c.window.to}`],
      ['Thresholds', c.thresholds.map((t) => `${t.currency} ${money(t.minAmount)}`).join(', ')],
      ['Operations reported', c.operations.length],
    ]);
  for (const category of c.categories) {
    const rows = c.operations.filter((op) => op.category === category.category);
    body += `<h2>${escapeHtml(CATEGORY_TITLES[category.category])}</h2>\n` + totalsHtml(category.totals);
    if (rows.length === 0) continue;
    body +=
      '<table><thead><tr><th>Reference</th><th>Completed (UTC)</th><th>Amount</th><th>Fee</th><th>Currency</th><th>From</th><th>To</th></tr></thead><tbody>' +
      rows
        .map(
          (op) =>
            `<tr><td>${escapeHtml(op.reference)}</td><td>${escapeHtml(op.completedAt)}</td><td class="n">${money(op.amount)}</td>` +
            `<td class="n">${money(op.fee)}</td><td>${escapeHtml(op.currency)}</td><td>${partyHtml(op.source)}</td><td>${partyHtml(op.destination)}</td></tr>`,
        )
        .join('') +
      '</tbody></table>\n';
  }
  return page(`${c.reference} daily threshold report`, body);
}

export function suspicionHtml(c: SuspicionReportContent): string {
  const s = c.subject;
  let body =
    `<h1>Suspicious transaction report ${escapeHtml(c.reference)}</h1>\n` +
    definitions([
      ['Report', c.reference],
      ['Made', `${c.generatedAt} by ${c.generatedBy.userId} (${c.generatedBy.role})`],
      ['Case', `${c.case.reference} opened ${c.case.openedAt}`],
    ]) +
    '<h2>Subject</h2>\n' +
    definitions([
      ['Kind', s.kind],
      ['Name', s.name],
      ['Business name', s.businessName],
      ['Phone', s.phone],
      ['Role', s.role],
      ['KYC tier', s.kycTier],
      ['Agent code', s.agentCode],
      ['User id', s.userId],
      ['Accounts', s.accountIds.join(', ')],
    ]) +
    '<h2>Grounds for suspicion</h2>\n<ul>' +
    c.grounds.map((g) => `<li>${escapeHtml(g)}</li>`).join('') +
    '</ul>\n<h2>Narrative</h2>\n' +
    `<p class="narrative">${escapeHtml(c.narrative)}</p>\n` +
    '<h2>Alerts raised by transaction monitoring</h2>\n';
  body +=
    c.alerts.length === 0
      ? '<p class="muted">No alert.</p>\n'
      : '<table><thead><tr><th>Rule</th><th>Raised (UTC)</th><th>Reason</th><th>Operations</th></tr></thead><tbody>' +
        c.alerts
          .map(
            (a) =>
              `<tr><td>${escapeHtml(a.rule)} (v${a.configVersion})</td><td>${escapeHtml(a.raisedAt)}</td><td>${escapeHtml(a.reason)}</td>` +
              `<td>${escapeHtml(`${alertListing(a)}: ${a.transactionReferences.join(', ')}`)}</td></tr>`,
          )
          .join('') +
        '</tbody></table>\n';
  body += '<h2>Operations</h2>\n';
  if (c.alerts.some((a) => a.truncated)) {
    body +=
      '<p>Some alerts named only their first operations and the one that raised them (see the alerts above): ' +
      'this list and its totals cover the operations named, not every operation behind those alerts.</p>\n';
  }
  body += totalsHtml(c.totals);
  if (c.operations.length > 0) {
    body +=
      '<table><thead><tr><th>Reference</th><th>Type</th><th>Occurred (UTC)</th><th>Amount</th><th>Currency</th><th>From</th><th>To</th><th>Alerts</th></tr></thead><tbody>' +
      c.operations
        .map(
          (op) =>
            `<tr><td>${escapeHtml(op.reference)}</td><td>${escapeHtml(op.type)}</td><td>${escapeHtml(op.occurredAt)}</td><td class="n">${money(op.amount)}</td>` +
            `<td>${escapeHtml(op.currency)}</td><td>${partyHtml(op.source)}</td><td>${partyHtml(op.destination)}</td><td>${escapeHtml(op.alertRules.join(', '))}</td></tr>`,
        )
        .join('') +
      '</tbody></table>\n';
  }
  return page(`${c.reference} suspicious transaction report`, body);
}
