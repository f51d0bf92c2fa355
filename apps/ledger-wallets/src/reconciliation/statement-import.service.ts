import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { type BankStatementView, type ImportBankStatementDto, PLATFORM_UTC_OFFSET, businessDayBounds, isDayOver } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { constraintName, isUniqueViolation, sqlState } from '../db/sql-errors';
import { parseCamt053 } from './camt053-parser';
import { parseCsvStatement } from './csv-statement-parser';
import type { ParsedStatement } from './parsed-statement';
import type { Reconciler } from './reconcilers';
import { STATEMENT_COLUMNS, type StatementRow, toStatementView } from './reconciliation-views';
import { ReconciliationSettings } from './trust-accounts';

/**
 * Imports a trust-account statement: read strictly (camt053-parser, csv-statement-parser), then
 * checked against the configuration and the statements already imported, then written with its
 * lines in one transaction. Every refusal happens before anything is written, or rolls back.
 */
@Injectable()
export class StatementImportService {
  private readonly logger = new Logger(StatementImportService.name);

  constructor(
    private readonly db: LedgerDb,
    private readonly settings: ReconciliationSettings,
  ) {}

  async import(dto: ImportBankStatementDto, by: Reconciler): Promise<BankStatementView> {
    const offsetOf = (account: string) => this.settings.utcOffsets.get(account) ?? PLATFORM_UTC_OFFSET;
    const parsed = dto.format === 'CAMT053' ? parseCamt053(dto.content, offsetOf) : parseCsvStatement(dto.content);
    const utcOffset = offsetOf(parsed.account);
    const expected = this.settings.trustAccounts.get(parsed.account);
    if (!expected) throw new AppException('BANK_ACCOUNT_NOT_TRUST_ACCOUNT', `Account ${parsed.account} is not a configured trust account`);
    if (parsed.currency !== expected) {
      throw new AppException(
        'BANK_STATEMENT_WRONG_CURRENCY',
        `The statement is in ${parsed.currency}; trust account ${parsed.account} holds ${expected}`,
      );
    }
    // A statement of a day still running would close on a balance the bank has not finished, and,
    // dated ahead by mistake, would block every real statement after it (each must follow the last).
    if (!isDayOver(parsed.closing.date, this.settings.now(), utcOffset)) {
      throw new AppException(
        'BANK_STATEMENT_DAY_NOT_OVER',
        `Statement ${parsed.statementId} closes on ${parsed.closing.date}, which ends at ${businessDayBounds(parsed.closing.date, utcOffset).to}; nothing was imported`,
      );
    }
    const hash = createHash('sha256').update(dto.content, 'utf8').digest('hex');
    const row = await this.db.withSession(async (s) => {
      await s.exec('BEGIN');
      s.inTransaction = true;
      // One import per account at a time: the order check below reads what the previous one wrote.
      await s.query(`SELECT pg_advisory_xact_lock(hashtextextended('bank-statement:' || $1, 0))`, [parsed.account]);
      await this.refuseDuplicate(s.query.bind(s), parsed, hash);
      await this.refuseOutOfOrder(s.query.bind(s), parsed);
      try {
        const [created] = await s.query<StatementRow>(
          `WITH st AS (
             INSERT INTO ledger.bank_statements (account, currency, statement_ref, format, content_hash, opening_balance, opening_date,
                                                 closing_balance, closing_date, line_count, imported_by, imported_roles, caller, request_id, correlation_id, utc_offset)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $17) RETURNING *),
           li AS (
             INSERT INTO ledger.bank_statement_lines (statement_id, line_no, direction, amount, booking_date, value_date, reference, remittance)
             SELECT st.id, l."lineNo", l.direction, l.amount, l."bookingDate", l."valueDate", l.reference, l.remittance
             FROM st CROSS JOIN jsonb_to_recordset($16::jsonb)
               AS l("lineNo" int, direction text, amount bigint, "bookingDate" date, "valueDate" date, reference text, remittance text))
           SELECT ${STATEMENT_COLUMNS} FROM st`,
          [
            parsed.account,
            parsed.currency,
            parsed.statementId,
            parsed.format,
            hash,
            parsed.opening.amount,
            parsed.opening.date,
            parsed.closing.amount,
            parsed.closing.date,
            parsed.lines.length,
            by.operator.id,
            by.operator.roles,
            by.caller,
            by.requestId,
            by.correlationId,
            JSON.stringify(parsed.lines),
            utcOffset,
          ],
        );
        await s.exec('COMMIT');
        s.inTransaction = false;
        return created;
      } catch (error) {
        // Another writer got there between the checks and the insert (the lock covers this service only).
        if (isUniqueViolation(error)) throw duplicate(parsed, 'imported at the same time');
        if (sqlState(error) === '23514' && constraintName(error) === 'CHK_bank_statements_order')
          throw outOfOrder(parsed, 'it does not follow the last statement');
        throw error;
      }
    });
    this.logger.log(
      { statementId: row.id, account: row.account, statementRef: row.statement_ref, lines: row.line_count, operatorId: by.operator.id },
      'bank statement imported',
    );
    return toStatementView(row);
  }

  private async refuseDuplicate(query: LedgerQuery, parsed: ParsedStatement, hash: string): Promise<void> {
    const [existing] = await query<{ id: string; same_ref: boolean }>(
      `SELECT id, (account = $1 AND statement_ref = $2) AS same_ref FROM ledger.bank_statements
        WHERE (account = $1 AND statement_ref = $2) OR content_hash = $3 LIMIT 1`,
      [parsed.account, parsed.statementId, hash],
    );
    if (existing)
      throw duplicate(
        parsed,
        existing.same_ref ? `statement ${existing.id} has the same id` : `statement ${existing.id} has the same content`,
      );
  }

  private async refuseOutOfOrder(query: LedgerQuery, parsed: ParsedStatement): Promise<void> {
    const [last] = await query<{ statement_ref: string; closing_balance: string; closing_date: string }>(
      `SELECT statement_ref, closing_balance::text, closing_date::text FROM ledger.bank_statements
        WHERE account = $1 ORDER BY closing_date DESC, imported_at DESC LIMIT 1`,
      [parsed.account],
    );
    if (!last) return;
    if (parsed.closing.date <= last.closing_date || parsed.opening.date < last.closing_date) {
      throw outOfOrder(
        parsed,
        `it covers ${parsed.opening.date} to ${parsed.closing.date}; the last one imported (${last.statement_ref}) closed on ${last.closing_date}`,
      );
    }
    if (BigInt(parsed.opening.amount) !== BigInt(last.closing_balance)) {
      throw outOfOrder(
        parsed,
        `it opens with ${parsed.opening.amount}; the last one imported (${last.statement_ref}) closed with ${last.closing_balance}`,
      );
    }
  }
}

type LedgerQuery = <T>(sql: string, params?: unknown[]) => Promise<T[]>;

const duplicate = (parsed: ParsedStatement, why: string) =>
  new AppException(
    'BANK_STATEMENT_DUPLICATE',
    `Statement ${parsed.statementId} of account ${parsed.account} was already imported (${why}); nothing was changed`,
  );

const outOfOrder = (parsed: ParsedStatement, why: string) =>
  new AppException(
    'BANK_STATEMENT_OUT_OF_ORDER',
    `Statement ${parsed.statementId} does not follow the last one of account ${parsed.account}: ${why}`,
  );

/** Reads of imported statements, newest first. */
@Injectable()
export class BankStatementsReader {
  constructor(private readonly db: LedgerDb) {}

  async list(limit: number): Promise<BankStatementView[]> {
    const rows = await this.db.query<StatementRow>(
      `SELECT ${STATEMENT_COLUMNS} FROM ledger.bank_statements ORDER BY imported_at DESC, id LIMIT $1`,
      [limit],
    );
    return rows.map(toStatementView);
  }

  async get(id: string): Promise<BankStatementView> {
    const [row] = await this.db.query<StatementRow>(`SELECT ${STATEMENT_COLUMNS} FROM ledger.bank_statements WHERE id = $1`, [id]);
    if (!row) throw new AppException('BANK_STATEMENT_NOT_FOUND');
    return toStatementView(row);
  }
}
