import {
  type ParsedBalance,
  type ParsedLine,
  type ParsedStatement,
  checkStatement,
  cleanText,
  malformed,
  parseAmount,
  parseDate,
  parseDirection,
} from './parsed-statement';

/** The header the CSV format must start with, exactly (docs/reconciliation.md, "CSV"). */
export const CSV_HEADER = [
  'statement_id',
  'account',
  'currency',
  'record',
  'booking_date',
  'value_date',
  'amount',
  'direction',
  'reference',
  'remittance',
];

/**
 * The simple CSV statement: RFC 4180 (comma, double quotes, "" inside quotes), the header above,
 * then one OPENING row, the ENTRY rows and one CLOSING row, every row of one statement, account
 * and currency. A balance row's direction says its sign (DEBIT: an overdrawn account).
 */
export function parseCsvStatement(content: string): ParsedStatement {
  const rows = csvRows(content);
  if (rows.length === 0) throw malformed('CSV', 'empty');
  if (rows[0].join(',') !== CSV_HEADER.join(',')) throw malformed('CSV line 1', `the header must be exactly: ${CSV_HEADER.join(',')}`);
  let statementId: string | undefined;
  let account: string | undefined;
  let currency: string | undefined;
  let opening: ParsedBalance | undefined;
  let closing: ParsedBalance | undefined;
  const lines: ParsedLine[] = [];
  for (const [i, row] of rows.slice(1).entries()) {
    const where = `CSV line ${i + 2}`;
    if (row.length !== CSV_HEADER.length) throw malformed(where, `${row.length} columns, ${CSV_HEADER.length} expected`);
    const [id, acct, ccy, record, booking, value, amount, direction, reference, remittance] = row.map((c) => c.trim());
    const normalised = acct.replace(/\s+/g, '').toUpperCase();
    if (statementId === undefined) [statementId, account, currency] = [id, normalised, ccy];
    if (id !== statementId || normalised !== account) throw malformed(where, 'every row must belong to the same statement and account');
    if (ccy !== currency) throw malformed(where, `currency ${ccy} in a statement in ${currency}`);
    if (record === 'OPENING' || record === 'CLOSING') {
      const balance = {
        amount: (parseDirection(direction, where) === 'DEBIT' ? -1 : 1) * parseAmount(amount, where),
        date: parseDate(booking, where),
      };
      if (record === 'OPENING') {
        if (opening || lines.length > 0) throw malformed(where, 'one OPENING row, before the entries');
        opening = balance;
      } else {
        if (closing) throw malformed(where, 'a second CLOSING row');
        closing = balance;
      }
    } else if (record === 'ENTRY') {
      if (!opening || closing) throw malformed(where, 'entries come between the OPENING and the CLOSING row');
      lines.push({
        lineNo: lines.length + 1,
        direction: parseDirection(direction, where),
        amount: parseAmount(amount, where),
        bookingDate: parseDate(booking, where),
        valueDate: value ? parseDate(value, where) : null,
        reference: cleanText(reference, 140),
        remittance: cleanText(remittance),
      });
    } else {
      throw malformed(where, `record "${record}" is not OPENING, ENTRY or CLOSING`);
    }
  }
  if (!opening) throw malformed('CSV', 'no OPENING row');
  if (!closing) throw malformed('CSV', 'no CLOSING row');
  return checkStatement({ format: 'CSV', statementId: statementId!, account: account!, currency: currency!, opening, closing, lines });
}

/** RFC 4180 rows; blank lines skipped; an unclosed quote or a quote inside an unquoted field is refused. */
function csvRows(content: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let line = 1;
  const endField = () => {
    row.push(field);
    field = '';
    wasQuoted = false;
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"') {
      if (field !== '' || wasQuoted) throw malformed(`CSV line ${line}`, 'a quote inside an unquoted field');
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      endField();
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
    } else {
      if (wasQuoted) throw malformed(`CSV line ${line}`, 'text after a closing quote');
      field += c;
    }
  }
  if (quoted) throw malformed(`CSV line ${line}`, 'unclosed quote');
  endRow();
  return rows;
}
