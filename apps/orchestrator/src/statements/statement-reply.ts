import type { FastifyReply } from 'fastify';
import { type SettlementStatement, type SettlementStatementQuery, settlementCsvFileName, settlementStatementCsv } from '@mm/contracts';

/** The statement as asked: the JSON object, or (format=csv) its CSV as an attachment. */
export function statementReply(
  statement: SettlementStatement,
  query: SettlementStatementQuery,
  reply: FastifyReply,
): SettlementStatement | string {
  if (query.format !== 'csv') return statement;
  void reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${settlementCsvFileName(statement)}"`);
  return settlementStatementCsv(statement);
}

/** What the statement routes say about the period and the answer, for their OpenAPI description. */
export const STATEMENT_ROUTE_RULES =
  'Give date, or from and to (days, inclusive, at most 31), at utcOffset (+01:00, West Africa Time, when absent); a period that has not begun, ' +
  'an impossible day or a longer span is 400 SETTLEMENT_PERIOD_INVALID (top level, or the field code of a malformed day); one starting more ' +
  'than 400 days back (the ledger setting LEDGER_STATEMENT_MAX_AGE_DAYS) is 400 SETTLEMENT_PERIOD_TOO_OLD. ' +
  'Each line is one ledger entry on the merchant account (payments, deposits, fees, payouts, reversals, corrections), in the order the ledger ' +
  'applied them, with the balance after it; a payment that paid a partner order names the order and its external reference. ' +
  'openingBalance + totalCredits − totalDebits = closingBalance. final is true once the period ended more than 5 minutes ago and partners has ' +
  'applied every QR payment in it: from then on the same request gives the same answer, and with format=csv (columns in docs/statements.md) ' +
  'the same bytes. More than 20000 entries is 422 SETTLEMENT_STATEMENT_TOO_LARGE (ask for shorter periods); a read the ledger cancelled ' +
  'after its time limit is 503 SETTLEMENT_STATEMENT_TIMEOUT.';

export const STATEMENT_ROUTE_ERRORS = [
  'VALIDATION_ERROR',
  'SETTLEMENT_PERIOD_INVALID',
  'SETTLEMENT_PERIOD_TOO_OLD',
  'SETTLEMENT_FORMAT_INVALID',
  'UNSUPPORTED_CURRENCY',
  'SETTLEMENT_CURRENCY_UNAVAILABLE',
  'SETTLEMENT_STATEMENT_TOO_LARGE',
  'SETTLEMENT_STATEMENT_TIMEOUT',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
] as const;
