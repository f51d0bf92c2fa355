import { Module } from '@nestjs/common';
import { ReconciliationLedgerClient } from './reconciliation-ledger.client';
import { ReconciliationController } from './reconciliation.controller';

/** Float reconciliation for compliance officers: the ledger keeps the statements, runs and alerts; this relays with the officer's token. */
@Module({
  controllers: [ReconciliationController],
  providers: [ReconciliationLedgerClient],
})
export class ReconciliationModule {}
