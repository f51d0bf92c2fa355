import { Controller, Get, HttpCode, Param, Post, Query, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AccountAuditReportView,
  IntegrityCheckRecordView,
  IntegrityCheckResultView,
  IntegrityChecksQueryDto,
  LedgerChainVerificationRecordView,
  LedgerChainVerificationView,
  LedgerChainVerificationsQueryDto,
} from '@mm/contracts';
import { type AuthUser, CurrentUser, type Permission, RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { uuid } from '../common/validators';
import { ComplianceLedgerClient } from './compliance-ledger.client';
import { LedgerChainWitness } from './ledger-chain-witness.service';

const ERROR = { schema: { $ref: '#/components/schemas/ErrorBody' } };

/**
 * The permission and the answers of a compliance route: the access guard's 401 / 403, the ledger's
 * own role check of the token the orchestrator forwards to it, and the ledger's failures.
 */
const ComplianceRoute = (permission: Permission) =>
  applyDecorators(
    RequirePermission(permission),
    ApiAdminRoute(
      permission,
      '`OPERATOR_ROLE_REQUIRED`: the ledger itself accepts audits, integrity checks and chain verifications only from COMPLIANCE and ADMIN',
    ),
    // The ledger's failures and the platform's own misconfiguration: never the officer's fault.
    ApiResponse({
      status: 502,
      description:
        '`UPSTREAM_UNAVAILABLE`: the ledger is unreachable or failed, or it refused the platform itself: an access token auth ' +
        "issued that the ledger cannot verify, or the orchestrator's service credential (a stale key, a caller it does not allow)",
      ...ERROR,
    }),
    ApiResponse({
      status: 504,
      description:
        '`UPSTREAM_TIMEOUT`: the ledger did not answer in time. An audit or a check is tried once, for up to ' +
        '`COMPLIANCE_LEDGER_TIMEOUT_MS`, and the ledger may still finish and journal it',
      ...ERROR,
    }),
  );

/**
 * Compliance officers' audits and integrity checks (docs/ledger.md "Audit and the integrity job"). The
 * orchestrator checks the permission, then calls the ledger with its service key and the officer's
 * own access token, which the ledger verifies again and records: every audit and every check names
 * the officer who asked, not merely the orchestrator.
 */
@ApiTags('compliance')
@Controller('v1/compliance')
export class ComplianceController {
  constructor(
    private readonly ledger: ComplianceLedgerClient,
    private readonly witness: LedgerChainWitness,
  ) {}

  @Get('accounts/:accountId/audit')
  @ComplianceRoute('compliance.audit')
  @ApiParam({ name: 'accountId', format: 'uuid', description: 'a ledger account (e.g. one an integrity check listed)' })
  @ApiOperation({
    summary: 'Audit one ledger account',
    description:
      'Stored against recomputed balance, available + frozen, symmetry of the entries, orphans, and a status OK / WARNING / CRITICAL ' +
      '(a CRITICAL report is still a 200). Read-only; the ledger journals the audit under the caller. An audit of a busy ' +
      'account (fee collection, treasury) reads much of the ledger: it is run once, never repeated on a slow answer. ' +
      'Sums over entries (debits, credits, the recomputed balance and the gap) are decimal strings, exact however large.',
  })
  @ApiOkResponse({ type: AccountAuditReportView, description: 'the report, whatever its status' })
  @ApiErrors('VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND')
  audit(@Param('accountId', uuid('accountId')) accountId: string, @CurrentUser() user: AuthUser): Promise<AccountAuditReportView> {
    return this.ledger.audit(accountId, user.accessToken);
  }

  @Post('integrity-checks')
  @HttpCode(200)
  @ComplianceRoute('compliance.integrity')
  @ApiOperation({
    summary: 'Run the ledger integrity check now',
    description:
      "The nightly check, on demand: every account's stored balance against its entries and every currency's totals, in one " +
      'read-only snapshot. Recorded with the caller as `requestedBy`; on any gap it alerts the compliance channel. It reads the ' +
      "whole ledger: expect seconds, not milliseconds. Sums (the currency totals, each gap's recomputed balance and difference) " +
      'are decimal strings, exact however large.',
  })
  @ApiOkResponse({ type: IntegrityCheckResultView, description: 'the check just run (status OK or GAPS_FOUND: both are a 200)' })
  runIntegrityCheck(@CurrentUser() user: AuthUser): Promise<IntegrityCheckResultView> {
    return this.ledger.runIntegrityCheck(user.accessToken);
  }

  @Get('integrity-checks')
  @ComplianceRoute('compliance.integrity')
  @ApiOperation({ summary: 'The latest integrity checks, newest first, with who asked for each and the outcome of its alert' })
  @ApiOkResponse({ type: [IntegrityCheckRecordView], description: 'at most `limit` checks (default 20)' })
  @ApiErrors('VALIDATION_ERROR')
  integrityChecks(@Query() query: IntegrityChecksQueryDto, @CurrentUser() user: AuthUser): Promise<IntegrityCheckRecordView[]> {
    return this.ledger.integrityChecks(query.limit ?? 20, user.accessToken);
  }

  @Post('ledger-chain/verifications')
  @HttpCode(200)
  @ComplianceRoute('compliance.integrity')
  @ApiOperation({
    summary: "Verify the ledger's hash chain now",
    description:
      "Every ledger entry is chained to the one before it on its account (docs/ledger-chain.md). The ledger recomputes every hash, checks every account's " +
      'head and every anchor signed with its key, and names the earliest broken link: EDITED, INSERTED, DELETED, ANCHOR_MISMATCH or UNTRACEABLE, ' +
      'with the account, entry, transaction and reference, what was expected and what was found. The orchestrator then compares the anchors with ' +
      'its own copy of the newest one it witnessed: a ledger whose anchors fall behind it, or hold it with another MAC, is BROKEN with ' +
      'ANCHOR_ROLLED_BACK. Read-only, recorded with the caller as `requestedBy`; one at a time. It reads the whole ledger: expect seconds.',
  })
  @ApiOkResponse({ type: LedgerChainVerificationView, description: 'the verification just run (INTACT or BROKEN: both are a 200)' })
  @ApiErrors('LEDGER_CHAIN_VERIFICATION_RUNNING')
  async verifyLedgerChain(@CurrentUser() user: AuthUser): Promise<LedgerChainVerificationView> {
    return this.witness.judge(await this.ledger.verifyLedgerChain(user.accessToken));
  }

  @Get('ledger-chain/verifications')
  @ComplianceRoute('compliance.integrity')
  @ApiOperation({
    summary: 'The latest ledger chain verifications, newest first',
    description:
      'Each run with who asked (an officer, or `scheduler` for the nightly integrity check it was part of) and what it found, ' +
      "with the orchestrator's witness check added to the runs asked through it (an anchor rollback makes a run BROKEN).",
  })
  @ApiOkResponse({ type: [LedgerChainVerificationRecordView], description: 'at most `limit` verifications (default 20)' })
  @ApiErrors('VALIDATION_ERROR')
  async ledgerChainVerifications(
    @Query() query: LedgerChainVerificationsQueryDto,
    @CurrentUser() user: AuthUser,
  ): Promise<LedgerChainVerificationRecordView[]> {
    return this.witness.overlay(await this.ledger.ledgerChainVerifications(query.limit ?? 20, user.accessToken));
  }
}
