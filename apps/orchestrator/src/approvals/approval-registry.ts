import { Injectable } from '@nestjs/common';
import type { ApprovalAction, ApprovalHandler } from './approval-handler';

/**
 * The handlers of the engine, one per action, registered by the modules that own the actions when
 * they start. Looking up an action nobody registered is a programming error, not a user's.
 */
@Injectable()
export class ApprovalRegistry {
  private readonly handlers = new Map<ApprovalAction, ApprovalHandler>();

  register<P>(handler: ApprovalHandler<P>): void {
    if (this.handlers.has(handler.action)) throw new Error(`approval action ${handler.action} registered twice`);
    this.handlers.set(handler.action, handler as ApprovalHandler);
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
