import type { CaseFacts } from '../monitoring/case-facts';
import { buildDailyContent } from './daily-report.builder';
import type { ReportParty } from './report-content';
import { DAILY_CSV_COLUMNS, SUSPICION_CSV_COLUMNS, dailyCsv, dailyHtml, suspicionCsv, suspicionHtml } from './report-documents';
import { buildSuspicionContent } from './suspicion-report.builder';

const party = (accountId: string): ReportParty => ({
  accountId,
  accountType: 'customer',
  role: 'CUSTOMER',
  name: accountId === 'a' ? '=HYPERLINK("http://x","y"), <b>"Bad"</b>' : 'Awa Ndiaye',
  phone: '+237690000001',
  kycTier: 'TIER_1',
  agentCode: null,
});

const op = (reference: string, amount: number, type: 'CASH_IN' | 'TRANSFER', completedAt: string) => ({
  transactionId: `t-${reference}`,
  reference,
  type,
  amount,
  fee: 0,
  currency: 'XAF',
  completedAt,
  agentId: null,
  source: { accountId: 'a', accountType: 'customer', holder: 'A', ownerType: 'USER', ownerId: 'u' },
  destination: { accountId: 'b', accountType: 'customer', holder: 'B', ownerType: 'USER', ownerId: 'v' },
});

describe('daily report documents', () => {
  const ops = [
    op('MMPTX2611270000002', 7_000_000, 'TRANSFER', '2026-11-27T08:00:00.000000Z'),
    op('MMPTX2611270000001', 5_000_000, 'CASH_IN', '2026-11-27T09:00:00.000000Z'),
    op('MMPTX2611270000003', 4_999_999, 'CASH_IN', '2026-11-27T07:00:00.000000Z'),
  ];
  const content = buildDailyContent('2026-11-27', { XAF: 5_000_000, XOF: 5_000_000 }, ops, party);

  it('keeps the operations at or above the threshold, by category then time, whatever order they came in', () => {
    expect(content.operations.map((o) => o.reference)).toEqual(['MMPTX2611270000001', 'MMPTX2611270000002']);
    expect(buildDailyContent('2026-11-27', { XAF: 5_000_000, XOF: 5_000_000 }, [...ops].reverse(), party)).toEqual(content);
    expect(JSON.stringify(buildDailyContent('2026-11-27', { XOF: 5_000_000, XAF: 5_000_000 }, ops, party))).toBe(JSON.stringify(content));
  });

  it('writes RFC 4180 CSV with CRLF, integer amounts, quoted fields and a formula guard on every text cell', () => {
    const lines = dailyCsv(content).split('\r\n');
    expect(lines[0]).toBe(DAILY_CSV_COLUMNS.join(','));
    expect(lines[1]).toContain(',5000000,0,XAF,');
    expect(lines[1]).toContain(`,"'=HYPERLINK(""http://x"",""y""), <b>""Bad""</b>",'+237690000001,TIER_1,`);
    // a phone, KYC tier or agent code shaped as a formula is guarded as a name is
    const shaped = (accountId: string): ReportParty => ({
      ...party(accountId),
      phone: '-1+cmd|calc',
      kycTier: '@SUM(1)',
      agentCode: '=1+1',
    });
    const row = dailyCsv(buildDailyContent('2026-11-27', { XAF: 5_000_000, XOF: 5_000_000 }, ops, shaped)).split('\r\n')[1];
    expect(row).toContain(`,'-1+cmd|calc,'@SUM(1),'=1+1,`);
    expect(row.split(',').filter((cell) => /^[=+\-@]/.test(cell))).toEqual([]);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
  });

  it('escapes every value in the printable page and loads nothing', () => {
    const html = dailyHtml(content);
    expect(html).toContain('=HYPERLINK(&quot;http://x&quot;,&quot;y&quot;), &lt;b&gt;&quot;Bad&quot;&lt;/b&gt;');
    expect(html).not.toContain('<b>');
    expect(html).toContain('5\u202f000\u202f000');
    expect(html).not.toMatch(/<script|<link|<img|src=/);
  });
});

describe('suspicion report documents', () => {
  const refs = Array.from({ length: 200 }, (_, i) => `MMPTX26112700${String(i).padStart(5, '0')}`);
  const operation = (reference: string) => ({
    reference,
    transactionId: `t-${reference}`,
    type: 'TRANSFER' as const,
    amount: 1_000,
    currency: 'XAF',
    occurredAt: '2026-11-27T08:00:00.000Z',
    sourceAccountId: 'a',
    destinationAccountId: 'b',
  });
  const facts = (truncated: boolean): CaseFacts => ({
    caseId: 'c',
    reference: 'MC-000001',
    status: 'IN_REVIEW',
    assigneeId: 'o',
    openedAt: '2026-11-27T09:00:00.000Z',
    version: 3,
    subject: { kind: 'MERCHANT', userId: 'm', name: 'Shop', phone: '+237690000002', accountIds: ['b'] },
    alerts: [
      {
        alertId: 'al-1',
        rule: 'FAN_IN',
        configVersion: 1,
        reason: '211 payers in a day',
        raisedAt: '2026-11-27T09:00:00.000Z',
        transactionReferences: refs,
        operationsTotal: truncated ? 211 : 200,
        truncated,
      },
      {
        alertId: 'al-2',
        rule: 'VELOCITY',
        configVersion: 1,
        reason: '3 in an hour',
        raisedAt: '2026-11-27T09:00:01.000Z',
        transactionReferences: refs.slice(0, 3),
        operationsTotal: 3,
        truncated: false,
      },
    ],
    operations: refs.map(operation),
    notes: [],
  });
  const input = {
    reference: 'STR-20261127-00000001',
    generatedAt: '2026-11-27T10:00:00.000Z',
    generatedBy: { userId: 'o', role: 'COMPLIANCE' },
    grounds: ['many payers'],
    narrative: 'Money gathered from many payers.',
  };
  const content = (truncated: boolean) => buildSuspicionContent(facts(truncated), input, null, party);
  const CUT = '211 operations, 200 listed, including the one that raised the alert';

  it('states in the content, the CSV and the page that a truncated alert lists only part of its operations', () => {
    const cut = content(true);
    expect(cut.alerts.map((a) => [a.rule, a.operationsTotal, a.truncated, a.transactionReferences.length])).toEqual([
      ['FAN_IN', 211, true, 200],
      ['VELOCITY', 3, false, 3],
    ]);

    const lines = suspicionCsv(cut).split('\r\n');
    expect(lines[0]).toBe(SUSPICION_CSV_COLUMNS.join(','));
    expect(lines[0].endsWith(',alert_rules,alert_operations')).toBe(true);
    expect(lines[1].endsWith(`,FAN_IN;VELOCITY,"FAN_IN: ${CUT};VELOCITY: 3 operations, all listed"`)).toBe(true);
    expect(lines[200].endsWith(`,FAN_IN,"FAN_IN: ${CUT}"`)).toBe(true);

    const html = suspicionHtml(cut);
    expect(html).toContain(`<td>${CUT}: ${refs.join(', ')}</td>`);
    expect(html).toContain('<td>3 operations, all listed: ');
    expect(html).toContain('this list and its totals cover the operations named, not every operation behind those alerts');
  });

  it('says every operation is listed when no alert was cut, and claims no cut', () => {
    const whole = content(false);
    const csv = suspicionCsv(whole);
    const html = suspicionHtml(whole);
    expect(csv.split('\r\n')[200].endsWith(',FAN_IN,"FAN_IN: 200 operations, all listed"')).toBe(true);
    for (const doc of [csv, html]) expect(doc).not.toContain('including the one that raised the alert');
    expect(html).not.toContain('not every operation behind those alerts');
  });
});
