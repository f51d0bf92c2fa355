import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { isUuid } from '@mm/platform';
import type { AuthUser } from '../access/permissions';
import type { ApprovalHandler, PreparedState } from '../approvals/approval-handler';
import { readPayload } from '../approvals/approval-payload';
import { type BlocklistEntry, BlocklistService } from './blocklist.service';

export interface BlocklistRemovePayload {
  /** the active entry to lift */
  entryId: string;
  /** why, kept with the entry as its removal reason (the maker's words) */
  reason: string;
}

/** What the entry was when the request was submitted: the request's summary names it. */
interface EntryAtSubmission {
  phone: string;
  list: string;
}

const REASON_RULE = {
  test: (v: string) => v.trim().length >= 3 && v.length <= 500,
  code: 'INVALID_REASON',
  message: 'must be 3 to 500 characters, not blank',
};

/**
 * BLOCKLIST_REMOVE: a phone lifted from the risk blocklist may initiate, pay and be paid again.
 * Adding a phone is protective and stays immediate; lifting one needs a second holder of
 * `customers.freeze` (compliance officers and administrators) unless configuration makes it a
 * one-person action. Nothing is reserved while the request waits: the checker lifts the entry as
 * it then is, and a request whose entry was lifted meanwhile fails with BLOCKLIST_ENTRY_NOT_FOUND.
 */
@Injectable()
export class BlocklistRemoveHandler implements ApprovalHandler<BlocklistRemovePayload> {
  readonly action = 'BLOCKLIST_REMOVE' as const;
  readonly makerPermission = 'customers.freeze' as const;
  readonly checkerPermission = 'customers.freeze' as const;
  readonly fourEyesMandatory = false;

  constructor(private readonly blocklist: BlocklistService) {}

  parse(payload: unknown): BlocklistRemovePayload {
    const { entryId, reason } = readPayload(payload, {
      entryId: { test: isUuid, code: 'INVALID_UUID', message: 'must be a UUID' },
      reason: REASON_RULE,
    });
    return { entryId: entryId.toLowerCase(), reason };
  }

  describe(payload: BlocklistRemovePayload, prepared?: PreparedState) {
    const entry = prepared as EntryAtSubmission | null | undefined;
    return {
      target: { type: 'config' as const, id: `blocklist/${payload.entryId}` },
      summary: entry ? `Lift ${entry.phone} from the ${entry.list} blocklist` : `Lift blocklist entry ${payload.entryId}`,
    };
  }

  /** One live removal per entry, whatever its reason. */
  dedupKey(payload: BlocklistRemovePayload): string {
    return payload.entryId;
  }

  /** Refuses an entry that does not exist or is lifted already; remembers the phone and list for the summary. */
  async prepare(payload: BlocklistRemovePayload): Promise<PreparedState> {
    const entry = await this.activeEntry(payload.entryId);
    return { phone: entry.phone, list: entry.list };
  }

  async preview(payload: BlocklistRemovePayload) {
    const entry = await this.blocklist.get(payload.entryId);
    if (!entry) throw new AppException('BLOCKLIST_ENTRY_NOT_FOUND');
    return {
      entry,
      effect:
        entry.removedAt === null
          ? 'The phone may initiate operations, pay and be paid again (other risk rules still apply)'
          : 'Nothing: the entry has been lifted already',
    };
  }

  /**
   * Lifts the entry as the checker. Safe to run again for the same request: an entry already lifted
   * by this checker with these words is the earlier run's work and is answered as done.
   */
  async execute(payload: BlocklistRemovePayload, _prepared: PreparedState, checker: AuthUser): Promise<BlocklistEntry> {
    const entry = await this.blocklist.get(payload.entryId);
    if (entry && entry.removedAt !== null && entry.removedBy === checker.userId && entry.removalReason === payload.reason) return entry;
    return this.blocklist.remove(payload.entryId, { removedBy: checker.userId, reason: payload.reason });
  }

  private async activeEntry(id: string): Promise<BlocklistEntry> {
    const entry = await this.blocklist.get(id);
    if (!entry || entry.removedAt !== null) throw new AppException('BLOCKLIST_ENTRY_NOT_FOUND');
    return entry;
  }
}
