import { PLATFORM_UTC_OFFSET, addCalendarDays } from '@mm/contracts';
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
import { type XmlElement, all, at, readXml, required } from './xml-reader';

/**
 * ISO 20022 camt.053 (BankToCustomerStatement), the subset docs/reconciliation.md lists: one
 * Document/BkToCstmrStmt holding exactly one Stmt; its Id, the account (Acct/Id/IBAN or
 * Acct/Id/Othr/Id, Acct/Ccy), the OPBD (else PRCD) and CLBD balances, and every Ntry (Amt with Ccy, CdtDbtInd,
 * BookgDt, ValDt, NtryRef / AcctSvcrRef, RmtInf/Ustrd and AddtlNtryInf). Other elements are
 * ignored; a required one missing, a pending entry, a reversal indicator or an amount in another
 * currency than the account's is refused. Any version of the message (001.02 to 001.13) is read:
 * the elements used have not changed.
 */
export function parseCamt053(content: string, utcOffsetOf: (account: string) => string = () => PLATFORM_UTC_OFFSET): ParsedStatement {
  const root = readXml(content);
  if (root.name !== 'Document') throw malformed('camt.053', `the root element is ${root.name}, not Document`);
  const namespace = root.attributes.xmlns ?? Object.entries(root.attributes).find(([k]) => k.startsWith('xmlns:'))?.[1];
  if (namespace && !/camt\.053\./.test(namespace)) throw malformed('camt.053', `namespace ${namespace} is not a camt.053 message`);
  const message = at(root, 'BkToCstmrStmt', 'camt.053');
  if (!message) throw malformed('camt.053', 'Document/BkToCstmrStmt is missing');
  const statements = all(message, 'Stmt');
  if (statements.length !== 1) throw malformed('camt.053', `${statements.length} Stmt elements: one statement per file is read`);
  const stmt = statements[0];

  const statementId = required(stmt, 'Id', 'Stmt');
  const acct = at(stmt, 'Acct', 'Stmt');
  if (!acct) throw malformed('Stmt', 'Acct is missing');
  const iban = at(acct, 'Id/IBAN', 'Acct')?.text.trim();
  const other = at(acct, 'Id/Othr/Id', 'Acct')?.text.trim();
  const account = (iban || other || '').replace(/\s+/g, '').toUpperCase();
  if (!account) throw malformed('Acct', 'Id/IBAN or Id/Othr/Id is missing');
  const declared = at(acct, 'Ccy', 'Acct')?.text.trim();
  const utcOffset = utcOffsetOf(account);

  const currencies = new Set<string>();
  const amountOf = (parent: XmlElement, where: string): number => {
    const amt = at(parent, 'Amt', where);
    if (!amt || !amt.text.trim()) throw malformed(where, 'Amt is missing');
    const ccy = amt.attributes.Ccy;
    if (!ccy) throw malformed(where, 'Amt has no Ccy attribute');
    currencies.add(ccy.trim());
    return parseAmount(amt.text, where);
  };
  const dateOf = (parent: XmlElement, path: string, where: string): string | undefined => {
    const el = at(parent, path, where);
    if (!el) return undefined;
    const text = at(el, 'Dt', where)?.text ?? at(el, 'DtTm', where)?.text;
    if (!text) throw malformed(where, `${path} has neither Dt nor DtTm`);
    return parseDate(text, `${where} ${path}`, utcOffset);
  };

  const balances = new Map<string, ParsedBalance>();
  for (const [i, bal] of all(stmt, 'Bal').entries()) {
    const where = `Bal ${i + 1}`;
    const code = at(bal, 'Tp/CdOrPrtry/Cd', where)?.text.trim() ?? at(bal, 'Tp/CdOrPrtry/Prtry', where)?.text.trim();
    if (!code) throw malformed(where, 'Tp/CdOrPrtry/Cd is missing');
    if (code !== 'OPBD' && code !== 'CLBD' && code !== 'PRCD') continue;
    if (balances.has(code)) throw malformed(where, `a second ${code} balance`);
    const amount = amountOf(bal, where);
    const sign = parseDirection(required(bal, 'CdtDbtInd', where), where) === 'DEBIT' ? -1 : 1;
    const date = dateOf(bal, 'Dt', where);
    if (!date) throw malformed(where, 'Dt is missing');
    balances.set(code, { amount: sign * amount, date });
  }
  const closing = balances.get('CLBD');
  if (!closing) throw malformed('Stmt', 'no closing booked balance (Bal with Tp/CdOrPrtry/Cd CLBD)');
  // Many banks send the previous statement's closing balance (PRCD) instead of an opening one: the
  // same amount, dated on the day it closed, so this statement opens the day after.
  const previous = balances.get('PRCD');
  const opening =
    balances.get('OPBD') ?? (previous && { amount: previous.amount, date: minDate(addCalendarDays(previous.date, 1), closing.date) });
  if (!opening) throw malformed('Stmt', 'no opening booked balance (Bal with Tp/CdOrPrtry/Cd OPBD, or PRCD)');

  const lines: ParsedLine[] = all(stmt, 'Ntry').map((ntry, i) => {
    const where = `Ntry ${i + 1}`;
    const status = at(ntry, 'Sts', where);
    const statusCode = status ? (at(status, 'Cd', where)?.text ?? status.text).trim() : 'BOOK';
    if (statusCode !== 'BOOK') throw malformed(where, `status ${statusCode}: a statement lists booked entries only`);
    const reversal = at(ntry, 'RvslInd', where)?.text.trim();
    if (reversal === 'true')
      throw malformed(where, 'reversal entries (RvslInd true) are not read: the bank must book the reversal as an entry of its own');
    const bookingDate = dateOf(ntry, 'BookgDt', where);
    if (!bookingDate) throw malformed(where, 'BookgDt is missing');
    const remittance = [
      ...all(ntry, 'NtryDtls').flatMap((d) =>
        all(d, 'TxDtls').flatMap((tx) => [
          ...all(tx, 'RmtInf').flatMap((r) => all(r, 'Ustrd').map((u) => u.text)),
          ...(at(tx, 'Refs/EndToEndId', where) ? [at(tx, 'Refs/EndToEndId', where)!.text] : []),
        ]),
      ),
      ...all(ntry, 'AddtlNtryInf').map((a) => a.text),
    ].join(' ');
    return {
      lineNo: i + 1,
      amount: amountOf(ntry, where),
      direction: parseDirection(required(ntry, 'CdtDbtInd', where), where),
      bookingDate,
      valueDate: dateOf(ntry, 'ValDt', where) ?? null,
      reference: cleanText(at(ntry, 'NtryRef', where)?.text ?? at(ntry, 'AcctSvcrRef', where)?.text, 140),
      remittance: cleanText(remittance),
    };
  });

  if (currencies.size > 1) throw malformed('Stmt', `amounts in several currencies (${[...currencies].join(', ')})`);
  const currency = declared ?? [...currencies][0];
  if (declared && currencies.size === 1 && !currencies.has(declared)) {
    throw malformed('Stmt', `amounts in ${[...currencies][0]} on an account in ${declared}`);
  }
  return checkStatement({ format: 'CAMT053', statementId, account, currency, opening, closing, lines });
}

const minDate = (a: string, b: string): string => (a < b ? a : b);
