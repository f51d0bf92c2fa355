import { Module } from '@nestjs/common';
import { ComplianceLedgerClient } from './compliance-ledger.client';
import { ComplianceController } from './compliance.controller';

/** Compliance officers' account audits and integrity checks, run by the ledger on their behalf. */
@Module({
  controllers: [ComplianceController],
  providers: [ComplianceLedgerClient],
})
export class ComplianceModule {}
