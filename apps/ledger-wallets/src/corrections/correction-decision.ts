import { AppException } from '@mm/errors';
import type { CorrectionRow } from './correction-view';
import type { CorrectionsSettings } from './corrections.settings';
import { type OperatorIdentity, OperatorTokens } from './operator-tokens.service';

/**
 * The rules of a checker's approval, whatever the kind of correction: still pending, another
 * operator than the maker, and a compliance officer above the limit. Applied before the lock (a fast
 * answer) and again under it (a concurrent decision may have won meanwhile).
 */
export function checkDecision(correction: CorrectionRow, checker: OperatorIdentity, settings: CorrectionsSettings): void {
  if (correction.status !== 'PENDING_APPROVAL') throw new AppException('CORRECTION_ALREADY_DECIDED');
  if (correction.maker_id === checker.id) throw new AppException('CORRECTION_SAME_USER');
  if (correction.requires_compliance && !OperatorTokens.holds(checker, settings.complianceRoles)) {
    throw new AppException(
      'CORRECTION_COMPLIANCE_REQUIRED',
      `Corrections above ${settings.complianceLimit} need a checker with one of the roles ${settings.complianceRoles.join(', ')}`,
    );
  }
}

/** Accounts an approval may take below their available balance (they may be negative). */
export const MAY_GO_NEGATIVE = ['treasury', 'suspense'];
