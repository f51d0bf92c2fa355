import { type CorrectionPreviewView, LEDGER_CORRECTION_KINDS, LEDGER_CORRECTION_STATUSES, type SameShape } from '@mm/contracts';
import type { CorrectionPreview } from '../correction-preview.service';
import { CORRECTION_STATUSES } from './list-corrections.dto';
import { CORRECTION_KINDS } from './submit-correction.dto';

/*
 * `GET /v1/internal/corrections/:id/preview` answers the contract's CorrectionPreviewView (libs/contracts,
 * shared with the orchestrator that relays it). These checks fail to compile when the preview the
 * service builds, or the kinds and statuses the ledger keeps, move away from what that class documents.
 */
export { CorrectionPreviewView } from '@mm/contracts';

const previewShape: SameShape<CorrectionPreview, CorrectionPreviewView> = true;
const kinds: SameShape<typeof CORRECTION_KINDS, typeof LEDGER_CORRECTION_KINDS> = true;
const statuses: SameShape<typeof CORRECTION_STATUSES, typeof LEDGER_CORRECTION_STATUSES> = true;
void [previewShape, kinds, statuses];
