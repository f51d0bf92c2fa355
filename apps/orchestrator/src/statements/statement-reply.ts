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
  'an impossible day or a longer span is 400 SETTLEMENT_PERIOD_INVALID (top level, or the field code of a malformed day). ' +
  'Each line is one ledger entry on the merchant account (payments, deposits, fees, payouts, reversals, corrections), oldest first, ' +
  'with the balance after it; a payment that paid a partner order names the order and its external reference. ' +
  'openingBalance + totalCredits − totalDebits = closingBalance. format=csv answers text/csv (columns in docs/statements.md): ' +
  'the same bytes for the same period once it is over.';

export const STATEMENT_ROUTE_ERRORS = [
  'VALIDATION_ERROR',
  'SETTLEMENT_PERIOD_INVALID',
  'SETTLEMENT_FORMAT_INVALID',
  'UNSUPPORTED_CURRENCY',
  'SETTLEMENT_CURRENCY_UNAVAILABLE',
  'SETTLEMENT_STATEMENT_TOO_LARGE',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
] as const;
