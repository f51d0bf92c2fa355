import { csvText, settlementStatement, settlementStatementCsv } from './settlement-statement-csv';
import type { LedgerAccountStatement, StatementPeriod } from './settlement-statements';

describe('csvText', () => {
  it.each([
    [null, ''],
    ['', ''],
    ['TILL1-000123', 'TILL1-000123'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+33', "'+33"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['=HYPERLINK("x"),till 2', `"'=HYPERLINK(""x""),till 2"`],
  ])('%j is written %j', (value, cell) => {
    expect(csvText(value)).toBe(cell);
  });
});

const period: StatementPeriod = {
  fromDate: '2026-11-27',
  toDate: '2026-11-27',
  utcOffset: '+01:00',
  start: '2026-11-26T23:00:00.000Z',
  end: '2026-11-27T23:00:00.000Z',
};

function ledger(final: boolean): LedgerAccountStatement {
  return {
    accountId: 'acc',
    currency: 'XAF',
    from: period.start,
    to: period.end,
    openingBalance: 100,
    closingBalance: 130,
    final,
    lines: [
      {
        entryId: 'e1',
        transactionId: 't1',
        referenceId: 'MMPTX2611270000001',
        bookedAt: '2026-11-27T09:00:00.000Z',
        transactionType: 'TRANSFER',
        category: 'PAYMENT',
        direction: 'CREDIT',
        amount: 30,
        balanceAfter: 130,
        reversalOf: null,
        viaQr: true,
      },
    ],
  };
}

describe('settlementStatement and its CSV', () => {
  const orders = new Map([['t1', { orderId: 'o1', externalReference: '=1+1' }]]);

  it('is final only when the ledger part is and every QR payment was applied', () => {
    expect(settlementStatement('m', period, ledger(true), orders, true).final).toBe(true);
    expect(settlementStatement('m', period, ledger(true), orders, false).final).toBe(false);
    expect(settlementStatement('m', period, ledger(false), orders, true).final).toBe(false);
  });

  it('writes OPENING, the lines, CLOSING, with final on the OPENING and CLOSING rows, CRLF, local times at the offset', () => {
    const csv = settlementStatementCsv(settlementStatement('m', period, ledger(false), orders, true));
    expect(csv.split('\r\n')).toEqual([
      'row_type,booked_at_utc,booked_at_local,category,transaction_type,reference_id,transaction_id,entry_id,reversal_of,credit,debit,balance_after,currency,order_id,external_reference,final',
      'OPENING,2026-11-26T23:00:00.000Z,2026-11-27T00:00:00.000+01:00,,,,,,,,,100,XAF,,,false',
      "LINE,2026-11-27T09:00:00.000Z,2026-11-27T10:00:00.000+01:00,PAYMENT,TRANSFER,MMPTX2611270000001,t1,e1,,30,,130,XAF,o1,'=1+1,",
      'CLOSING,2026-11-27T23:00:00.000Z,2026-11-28T00:00:00.000+01:00,,,,,,,30,0,130,XAF,,,false',
      '',
    ]);
  });

  it('writes local times at a negative offset', () => {
    const csv = settlementStatementCsv(settlementStatement('m', { ...period, utcOffset: '-05:30' }, ledger(true), new Map(), true));
    expect(csv.split('\r\n')[1]).toBe('OPENING,2026-11-26T23:00:00.000Z,2026-11-26T17:30:00.000-05:30,,,,,,,,,100,XAF,,,true');
  });
});
