import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { businessDayOf } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { parseCamt053 } from '../src/reconciliation/camt053-parser';
import { parseCsvStatement } from '../src/reconciliation/csv-statement-parser';
import { type FloatMovement, matchStatement, pairByDate } from '../src/reconciliation/matching';
import { parseTrustAccountOffsets, parseTrustAccounts } from '../src/reconciliation/trust-accounts';

const fixture = (name: string) => readFileSync(join(__dirname, '../../../test/fixtures/reconciliation', name), 'utf8');
const camt = fixture('camt053-sample.xml');
const csv = fixture('statement-sample.csv');

/** The refusal a reader throws: its stable code and message. */
function refusal(read: () => unknown): { code: string; message: string } {
  try {
    read();
  } catch (error) {
    if (error instanceof AppException) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the statement was accepted');
}

describe('bank statement readers', () => {
  const expected = {
    statementId: 'STMT-2026-11-20-0001',
    account: 'CM2110005000010123456789012',
    currency: 'XAF',
    opening: { amount: 12_500_000, date: '2026-11-20' },
    closing: { amount: 13_175_000, date: '2026-11-20' },
  };

  it("reads each trust account's currency and bank day offset from LEDGER_TRUST_ACCOUNTS (+01:00 unless written)", () => {
    const value = 'XAF:CM2110005000010123456789012,XOF:SN08SN0100152000048500003035@+00:00';
    expect([...parseTrustAccounts(value)]).toEqual([
      ['CM2110005000010123456789012', 'XAF'],
      ['SN08SN0100152000048500003035', 'XOF'],
    ]);
    expect([...parseTrustAccountOffsets(value)]).toEqual([
      ['CM2110005000010123456789012', '+01:00'],
      ['SN08SN0100152000048500003035', '+00:00'],
    ]);
    // a zoned date-time is the day of that instant at the account's offset
    const zoned = camt.replace(/<BookgDt>\s*<Dt>2026-11-20<\/Dt>/, '<BookgDt><DtTm>2026-11-20T23:30:00Z</DtTm>');
    expect(zoned).toContain('DtTm>2026-11-20T23:30:00Z');
    expect(parseCamt053(zoned, () => '+00:00').lines[0].bookingDate).toBe('2026-11-20');
    expect(refusal(() => parseCamt053(zoned)).code).toBe('BANK_STATEMENT_MALFORMED'); // the 21st in West Africa Time: after the statement
  });

  it('takes the previous closing balance (PRCD) as the opening one when OPBD is absent: the statement opens the day after it', () => {
    const prcd = camt
      .replace(/<Cd>OPBD<\/Cd>/, '<Cd>PRCD</Cd>')
      .replace(/(<Cd>PRCD<\/Cd>[\s\S]*?<Dt>)2026-11-20(<\/Dt>)/, '$12026-11-19$2');
    expect(prcd).toContain('PRCD');
    expect(parseCamt053(prcd)).toMatchObject({ opening: { amount: 12_500_000, date: '2026-11-20' }, closing: expected.closing });
    const neither = camt.replace(/<Cd>OPBD<\/Cd>/, '<Cd>ITBD</Cd>');
    expect(refusal(() => parseCamt053(neither))).toMatchObject({
      code: 'BANK_STATEMENT_MALFORMED',
      message: expect.stringMatching(/OPBD, or PRCD/),
    });
  });

  it('reads a realistic camt.053: account, balances (OPBD, CLBD; CLAV ignored), entries with references and remittance text', () => {
    const s = parseCamt053(camt);
    expect(s).toMatchObject({ format: 'CAMT053', ...expected });
    expect(s.lines).toEqual([
      {
        lineNo: 1,
        direction: 'CREDIT',
        amount: 500_000,
        bookingDate: '2026-11-20',
        valueDate: '2026-11-20',
        reference: 'BNK2611200001',
        remittance: 'Versement float agent AG00412345 MMPTX261120ABC1234 AG00412345-1120',
      },
      {
        lineNo: 2,
        direction: 'CREDIT',
        amount: 250_000,
        bookingDate: '2026-11-20',
        valueDate: null,
        reference: 'CMBK-7781-0002',
        remittance: 'Depot especes Douala & Bonaberi',
      },
      {
        lineNo: 3,
        direction: 'DEBIT',
        amount: 75_000,
        bookingDate: '2026-11-20',
        valueDate: '2026-11-21',
        reference: 'BNK2611200003',
        remittance: 'Remboursement float AG00499999',
      },
    ]);
  });

  it('reads the same statement from the documented CSV', () => {
    const s = parseCsvStatement(csv);
    expect(s).toMatchObject({ format: 'CSV', ...expected });
    expect(s.lines.map((l) => [l.direction, l.amount, l.reference])).toEqual([
      ['CREDIT', 500_000, 'BNK2611200001'],
      ['CREDIT', 250_000, 'CMBK-7781-0002'],
      ['DEBIT', 75_000, 'BNK2611200003'],
    ]);
    expect(s.lines[1].remittance).toBe('Depot especes Douala, Bonaberi');
  });

  it('reads a date-time booked with its zone as the business day in West Africa Time, one without a zone as written', () => {
    const at = (dtTm: string) => parseCamt053(camt.replace('2026-11-20T14:31:00+01:00', dtTm)).lines[1].bookingDate;
    expect(at('2026-11-20T22:59:59Z')).toBe('2026-11-20');
    expect(at('2026-11-20T23:30:00+01:00')).toBe('2026-11-20');
    expect(at('2026-11-20T23:30:00')).toBe('2026-11-20');
    // 23:30 UTC is 00:30 the next day in Douala: outside this one-day statement
    expect(refusal(() => at('2026-11-20T23:30:00Z')).message).toMatch(/booked on 2026-11-21, outside the statement/);
    expect(refusal(() => at('2026-11-20T25:00:00Z')).message).toMatch(/not a date-time/);
  });

  it.each([
    ['a truncated file', camt.slice(0, camt.length - 40), /never closed|closes/],
    ['a mismatched closing tag', camt.replace('</NtryRef>', '</NtryRf>'), /closes <NtryRef>/],
    ['a DOCTYPE (entity expansion)', camt.replace('<Document', '<!DOCTYPE d [<!ENTITY x "y">]>\n<Document'), /DOCTYPE/],
    ['an unknown entity', camt.replace('&amp;', '&nbsp;'), /unknown entity/],
    ['a bare ampersand', camt.replace('&amp;', '& '), /entity/],
    ['another message (camt.052)', camt.replace('camt.053.001.08', 'camt.052.001.08'), /not a camt.053/],
    ['no closing balance', camt.replace('<Cd>CLBD</Cd>', '<Cd>PRCD</Cd>'), /closing booked balance/],
    ['a pending entry', camt.replace('<Cd>BOOK</Cd>', '<Cd>PDNG</Cd>'), /PDNG/],
    ['a fractional franc', camt.replace('<Amt Ccy="XAF">500000</Amt>', '<Amt Ccy="XAF">500000.50</Amt>'), /minor unit/],
    ['balances that do not add up', camt.replace('13175000.00', '13175001'), /not the closing balance/],
    ['an entry booked outside the statement', camt.replace('<BookgDt><Dt>2026-11-20</Dt>', '<BookgDt><Dt>2026-11-22</Dt>'), /outside/],
    ['an impossible date', camt.replace('<Dt><Dt>2026-11-20</Dt></Dt>', '<Dt><Dt>2026-02-30</Dt></Dt>'), /calendar date/],
    ['amounts in two currencies', camt.replace('<Amt Ccy="XAF">75000</Amt>', '<Amt Ccy="XOF">75000</Amt>'), /several currencies/],
    ['text after the root', `${camt}<x/>`, /after the root/],
  ])('refuses %s with BANK_STATEMENT_MALFORMED', (_name, content, why) => {
    const r = refusal(() => parseCamt053(content));
    expect(r.code).toBe('BANK_STATEMENT_MALFORMED');
    expect(r.message).toMatch(why);
  });

  it.each([
    ['another header', csv.replace('remittance', 'memo'), /header/],
    ['a missing column', csv.replace(',2026-11-21,75000,DEBIT', ',75000,DEBIT'), /columns/],
    ['an unclosed quote', csv.replace('"Depot', 'Depot"x'), /quote/],
    ['no closing row', csv.split('\n').slice(0, 5).join('\n'), /CLOSING/],
    [
      'two accounts',
      csv.replace('CM2110005000010123456789012,XAF,ENTRY,2026-11-20,,250000', 'CM2110005000010123456789013,XAF,ENTRY,2026-11-20,,250000'),
      /same statement/,
    ],
    ['an unknown record', csv.replace('ENTRY,2026-11-20,,250000', 'FEE,2026-11-20,,250000'), /OPENING, ENTRY or CLOSING/],
    ['a negative amount', csv.replace(',75000,DEBIT', ',-75000,DEBIT'), /amount/],
  ])('refuses a CSV with %s', (_name, content, why) => {
    const r = refusal(() => parseCsvStatement(content));
    expect(r.code).toBe('BANK_STATEMENT_MALFORMED');
    expect(r.message).toMatch(why);
  });
});

describe('matching rules', () => {
  /** A movement as `readFloatMovements` gives it: completed at 10:00 UTC unless told, with its business day. */
  const move = (id: string, amount: number, day: string, extra: Partial<Omit<FloatMovement, 'businessDay'>> = {}): FloatMovement => {
    const m = {
      transactionId: id,
      referenceId: `MMPTX${id.toUpperCase()}`,
      completedAt: `${day}T10:00:00.000Z`,
      direction: 'CREDIT' as const,
      amount,
      correctionId: null,
      accountId: 'acct',
      accountType: 'agent',
      reversalOf: null,
      ...extra,
    };
    return { ...m, businessDay: businessDayOf(m.completedAt) };
  };
  const line = (lineNo: number, amount: number, bookingDate: string, remittance: string | null = null) => ({
    lineNo,
    direction: 'CREDIT' as const,
    amount,
    bookingDate,
    valueDate: null,
    reference: null,
    remittance,
  });
  const always = () => true;

  it('pairs by reference first, then by the closest date within the tolerance, then whole days both ways', () => {
    const r = matchStatement(
      [
        line(1, 100, '2026-11-22', 'deposit MMPTXB'),
        line(2, 100, '2026-11-20'),
        line(3, 300, '2026-11-20'),
        line(4, 40, '2026-11-21'),
        line(5, 60, '2026-11-21'),
      ],
      [
        move('a', 100, '2026-11-20'),
        move('b', 100, '2026-11-20'),
        move('c', 120, '2026-11-19'),
        move('d', 180, '2026-11-19'),
        move('e', 100, '2026-11-21'),
      ],
      2,
      always,
    );
    expect(r.matches.map((m) => [m.rule, m.bankLines.map((l) => l.lineNo), m.movements.map((x) => x.transactionId)])).toEqual([
      ['REFERENCE', [1], ['b']],
      ['DATE', [2], ['a']],
      ['GROUPED_LEDGER', [3], ['c', 'd']],
      ['GROUPED_BANK', [4, 5], ['e']],
    ]);
    expect(r.unmatchedBankLines).toEqual([]);
    expect(r.unmatchedMovements).toEqual([]);
  });

  it('leaves apart what differs in direction, amount or date beyond the tolerance; a movement and its reversal cancel out', () => {
    const r = matchStatement(
      [line(1, 100, '2026-11-25'), { ...line(2, 50, '2026-11-20'), direction: 'DEBIT' as const }],
      [
        move('a', 100, '2026-11-20'),
        move('b', 50, '2026-11-20'),
        move('c', 70, '2026-11-20'),
        move('r', 70, '2026-11-20', { direction: 'DEBIT', reversalOf: 'c' }),
      ],
      2,
      always,
    );
    expect(r.matches.map((m) => [m.rule, m.movements.map((x) => x.transactionId)])).toEqual([['REVERSED', ['c', 'r']]]);
    expect(r.unmatchedBankLines.map((l) => l.lineNo)).toEqual([1, 2]);
    expect(r.unmatchedMovements.map((m) => m.transactionId)).toEqual(['a', 'b']);
  });

  it('DATE pairs as many lines as it can: lines of days 12 and 10, movements of days 11 and 13, two days apart at most', () => {
    const lines = [line(1, 100, '2026-11-12'), line(2, 100, '2026-11-10')];
    const moves = [move('m11', 100, '2026-11-11'), move('m13', 100, '2026-11-13')];
    const r = matchStatement(lines, moves, 2, always);
    expect(r.matches.map((m) => [m.rule, m.bankLines[0].lineNo, m.movements[0].transactionId]).sort()).toEqual([
      ['DATE', 1, 'm13'],
      ['DATE', 2, 'm11'],
    ]);
    expect([r.unmatchedBankLines, r.unmatchedMovements]).toEqual([[], []]);
    // with as many pairs either way, the nearer dates win: a line of day 10 takes the movement of day 10, not of day 9
    const near = pairByDate([line(1, 100, '2026-11-10')], [move('m9', 100, '2026-11-09'), move('m10', 100, '2026-11-10')], 1);
    expect(near.map(([l, m]) => [l.lineNo, m.transactionId])).toEqual([[1, 'm10']]);
  });

  it('a funding and its refund that both went through the bank match their lines; without bank lines they cancel out', () => {
    const funding = move('f', 100, '2026-11-20');
    const refund = move('r', 100, '2026-11-20', { direction: 'DEBIT', reversalOf: 'f' });
    const banked = matchStatement(
      [line(1, 100, '2026-11-20'), { ...line(2, 100, '2026-11-20'), direction: 'DEBIT' as const }],
      [funding, refund],
      2,
      always,
    );
    expect(banked.matches.map((m) => [m.rule, m.bankLines[0]?.lineNo, m.movements[0].transactionId])).toEqual([
      ['DATE', 1, 'f'],
      ['DATE', 2, 'r'],
    ]);
    const unbanked = matchStatement([], [funding, refund], 2, always);
    expect(unbanked.matches.map((m) => m.rule)).toEqual(['REVERSED']);
  });

  it("officers' corrections: one made for a bank line matches that line (CORRECTED); a reversal that fixed a movement cancels it; the rest are set aside", () => {
    const forLine = move('fix', 10_000, '2026-11-25'); // days after the line: beyond the tolerance, still that line's
    const unpaid = move('topup', 50, '2026-11-20');
    const undo = move('undo', 50, '2026-11-21', { direction: 'DEBIT', reversalOf: 'topup' });
    const gapFix = move('gapfix', 70, '2026-11-21', { direction: 'DEBIT' });
    const r = matchStatement(
      [line(1, 10_000, '2026-11-20'), { ...line(2, 70, '2026-11-21'), direction: 'DEBIT' as const }],
      [forLine, unpaid, undo, gapFix],
      0,
      always,
      {
        lineFixes: new Map([['fix', 1]]),
        ledgerFixes: new Set(['undo', 'gapfix']),
      },
    );
    expect(r.matches.map((m) => [m.rule, m.bankLines.map((l) => l.lineNo), m.movements.map((x) => x.transactionId)])).toEqual([
      ['CORRECTED', [1], ['fix']],
      ['REVERSED', [], ['topup', 'undo']],
    ]);
    // the gap's fix is not a bank movement, even with a bank line of its amount on its day
    expect(r.setAside.map((m) => m.transactionId)).toEqual(['gapfix']);
    expect(r.unmatchedBankLines.map((l) => l.lineNo)).toEqual([2]);
  });

  it('compares bank dates with business days: a movement of 23:30 UTC belongs to the next day in West Africa Time', () => {
    const late = move('late', 100, '2026-11-20', { completedAt: '2026-11-20T23:30:00.000Z' });
    const dayBefore = matchStatement([line(1, 100, '2026-11-20')], [late], 0, always);
    expect([dayBefore.matches, dayBefore.unmatchedBankLines.length]).toEqual([[], 1]);
    const sameDay = matchStatement([line(1, 100, '2026-11-21')], [late], 0, always);
    expect(sameDay.matches.map((m) => m.rule)).toEqual(['DATE']);
    // grouped by business day: 22:30 UTC on the 20th and 23:30 UTC on the 20th are two days
    const early = move('early', 50, '2026-11-20', { completedAt: '2026-11-20T22:30:00.000Z' });
    const other = move('other', 50, '2026-11-21', { completedAt: '2026-11-21T09:00:00.000Z' });
    const grouped = matchStatement([line(1, 150, '2026-11-21')], [early, late, other], 0, always);
    expect(grouped.matches.map((m) => [m.rule, m.movements.map((x) => x.transactionId)])).toEqual([['GROUPED_LEDGER', ['late', 'other']]]);
  });
});
