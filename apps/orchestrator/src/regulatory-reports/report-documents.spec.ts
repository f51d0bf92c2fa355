import { buildDailyContent } from './daily-report.builder';
import type { ReportParty } from './report-content';
import { DAILY_CSV_COLUMNS, dailyCsv, dailyHtml } from './report-documents';

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
