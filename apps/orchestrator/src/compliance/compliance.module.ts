import { Module } from '@nestjs/common';
import { ComplianceLedgerClient } from './compliance-ledger.client';
import { ComplianceController } from './compliance.controller';
import { LedgerChainWitness } from './ledger-chain-witness.service';

/** Compliance officers' account audits, integrity checks and chain verifications, run by the ledger on their behalf; the witness of the chain's anchors. */
@Module({
  controllers: [ComplianceController],
  providers: [ComplianceLedgerClient, LedgerChainWitness],
})
export class ComplianceModule {}
