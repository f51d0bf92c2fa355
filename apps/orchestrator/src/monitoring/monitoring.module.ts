import { Module } from '@nestjs/common';
import { CASE_FACTS } from './case-facts';
import { CaseFactsService } from './cases/case-facts.service';
import { CaseStore } from './cases/case.store';

/**
 * Transaction monitoring (docs/monitoring.md): the feed of completed operations from the ledger's
 * outbox, the rules, alerts and the compliance cases officers work. Exports `CASE_FACTS` (the case
 * facts contract) for the regulatory reports module.
 */
@Module({
  providers: [CaseStore, CaseFactsService, { provide: CASE_FACTS, useExisting: CaseFactsService }],
  exports: [CASE_FACTS],
})
export class MonitoringModule {}
