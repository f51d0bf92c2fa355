import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../access/permissions';
import type { ApprovalAction } from './approval-handler';
import type { ApprovalRequestView } from './approval.views';

export interface SubmitApproval {
  action: ApprovalAction;
  payload: unknown;
  reason: string;
}

/**
 * The engine's entry point for the routes that start a sensitive action.
 * (Groundwork: the engine itself is being written in this module; see approval-handler.ts.)
 */
@Injectable()
export class ApprovalsService {
  /**
   * Records the request (maker, exact payload, reason, expiry) and runs the handler's prepare.
   * Answers the request PENDING, or EXECUTED when configuration lets this action run on one pair of
   * eyes. A second identical pending request is refused (APPROVAL_DUPLICATE_PENDING).
   */
  submit(user: AuthUser, input: SubmitApproval): Promise<ApprovalRequestView> {
    void user;
    void input;
    throw new Error('the maker-checker engine is not written yet');
  }
}
