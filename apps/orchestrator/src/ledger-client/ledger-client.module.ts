import { Module } from '@nestjs/common';
import { LedgerClient } from './ledger.client';

/** The orchestrator's only way to the ledger (it never reads the ledger's schema). */
@Module({
  providers: [LedgerClient],
  exports: [LedgerClient],
})
export class LedgerClientModule {}
