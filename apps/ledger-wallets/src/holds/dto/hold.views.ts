import { LEDGER_HOLD_STATUSES, type LedgerHoldView, type SameShape } from '@mm/contracts';
import { HOLD_STATUSES, type HoldView } from '../hold-view';

/*
 * The holds routes answer the contract's LedgerHoldView (libs/contracts, shared with the
 * orchestrator that relays it). These checks fail to compile when the hold toHoldView builds, or the
 * statuses the ledger keeps, move away from what that class documents.
 */
export { LedgerHoldView as HoldViewDto } from '@mm/contracts';

const holdShape: SameShape<HoldView, LedgerHoldView> = true;
const statuses: SameShape<typeof HOLD_STATUSES, typeof LEDGER_HOLD_STATUSES> = true;
void [holdShape, statuses];
