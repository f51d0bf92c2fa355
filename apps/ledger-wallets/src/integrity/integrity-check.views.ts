import type { IntegrityCheckResultView, SameShape } from '@mm/contracts';
import type { IntegrityCheckResult } from './integrity-check.service';

/*
 * The OpenAPI shapes of what the integrity routes answer are shared with the orchestrator, which
 * relays them unchanged (libs/contracts compliance-views.ts; the controller documents its routes
 * with them). Here the compiler checks that the
 * result the check builds and the documented class have the same fields (its gaps and currency
 * totals included), so a field added there without its documentation fails to compile.
 */
const resultDocumented: SameShape<IntegrityCheckResult, IntegrityCheckResultView> = true;
void resultDocumented;
