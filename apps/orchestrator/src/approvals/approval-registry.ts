import { Injectable } from '@nestjs/common';
import { OrchestratorConfig } from '../orchestrator.config';
import type { ApprovalAction, ApprovalHandler } from './approval-handler';

/**
 * The handlers of the engine, one per action, registered by the modules that own the actions when
 * they start. Looking up an action nobody registered is a programming error, not a user's.
 */
@Injectable()
export class ApprovalRegistry {
  private readonly handlers = new Map<ApprovalAction, ApprovalHandler>();

  constructor(private readonly config: OrchestratorConfig) {}

  /** Fails the start of the app when configuration would let one person do what must take two. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler has its own payload type; a list of them has none in common
  register(handler: ApprovalHandler<any>): void {
    if (this.handlers.has(handler.action)) throw new Error(`approval action ${handler.action} registered twice`);
    if (handler.fourEyesMandatory && this.config.APPROVALS_ONE_PERSON_ACTIONS.includes(handler.action)) {
      throw new Error(`Invalid configuration: APPROVALS_ONE_PERSON_ACTIONS lists ${handler.action}, which always needs four eyes`);
    }
    this.handlers.set(handler.action, handler);
  }

  get(action: ApprovalAction): ApprovalHandler {
    const handler = this.handlers.get(action);
    if (!handler) throw new Error(`no handler registered for approval action ${action}`);
    return handler;
  }

  has(action: ApprovalAction): boolean {
    return this.handlers.has(action);
  }

  actions(): ApprovalAction[] {
    return [...this.handlers.keys()];
  }
}
