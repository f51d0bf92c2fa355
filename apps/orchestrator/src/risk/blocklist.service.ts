import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';

export const BLOCKLISTS = ['SANCTIONS', 'FRAUD', 'INTERNAL'] as const;
export type Blocklist = (typeof BLOCKLISTS)[number];

export interface BlocklistEntry {
  id: string;
  phone: string;
  list: Blocklist;
  reason: string;
  addedBy: string;
  addedAt: string;
  removedBy: string | null;
  removedAt: string | null;
  removalReason: string | null;
}

interface EntryRow {
  id: string;
  phone: string;
  list: Blocklist;
  reason: string;
  added_by: string;
  added_at: Date;
  removed_by: string | null;
  removed_at: Date | null;
  removal_reason: string | null;
}

const COLUMNS = 'id, phone, list, reason, added_by, added_at, removed_by, removed_at, removal_reason';

/**
 * Phones that may neither pay nor be paid. Entries are removed by marking them, so the history stays.
 * Staff add entries at once; a removal from the API goes through the maker-checker engine
 * (BLOCKLIST_REMOVE, `blocklist-remove.handler.ts`), which calls `remove` once it is approved.
 */
@Injectable()
export class BlocklistService {
  private readonly logger = new Logger(BlocklistService.name);

  constructor(private readonly db: DataSource) {}

  async add(entry: { phone: string; list: Blocklist; reason: string; addedBy: string }): Promise<BlocklistEntry> {
    try {
      const [row] = await queryRows<EntryRow>(
        this.db,
        `INSERT INTO orchestrator.risk_blocklist (id, phone, list, reason, added_by) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [randomUUID(), entry.phone, entry.list, entry.reason, entry.addedBy],
      );
      this.logger.log({ msg: 'blocklist entry added', entryId: row.id, list: entry.list, addedBy: entry.addedBy });
      return toEntry(row);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new AppException('BLOCKLIST_ENTRY_EXISTS');
      throw error;
    }
  }

  async remove(id: string, removal: { removedBy: string; reason: string }): Promise<BlocklistEntry> {
    const [row] = await queryRows<EntryRow>(
      this.db,
      `UPDATE orchestrator.risk_blocklist SET removed_by = $2, removed_at = now(), removal_reason = $3
        WHERE id = $1 AND removed_at IS NULL RETURNING ${COLUMNS}`,
      [id, removal.removedBy, removal.reason],
    );
    if (!row) throw new AppException('BLOCKLIST_ENTRY_NOT_FOUND');
    this.logger.log({ msg: 'blocklist entry removed', entryId: id, removedBy: removal.removedBy });
    return toEntry(row);
  }

  /** One entry, active or lifted; null when there is none with this id. */
  async get(id: string): Promise<BlocklistEntry | null> {
    const [row] = await queryRows<EntryRow>(this.db, `SELECT ${COLUMNS} FROM orchestrator.risk_blocklist WHERE id = $1`, [id]);
    return row ? toEntry(row) : null;
  }

  /** Newest first; `phone` filters, `includeRemoved` shows history too. */
  async list(query: { phone?: string; includeRemoved?: boolean; limit: number; offset: number }): Promise<BlocklistEntry[]> {
    const rows = await queryRows<EntryRow>(
      this.db,
      `SELECT ${COLUMNS} FROM orchestrator.risk_blocklist
        WHERE ($1::text IS NULL OR phone = $1) AND ($2 OR removed_at IS NULL)
        ORDER BY added_at DESC, id LIMIT $3 OFFSET $4`,
      [query.phone ?? null, query.includeRemoved ?? false, query.limit, query.offset],
    );
    return rows.map(toEntry);
  }

  /**
   * What risk needs from the lists for one judgement, in one statement: the active entries for any
   * of these phones and, with `pair`, whether that payer has already paid that payee
   * (orchestrator.risk_counterparties, the known-payee rule).
   */
  async screen(
    phones: string[],
    pair?: { payerId: string; payeeId: string },
  ): Promise<{ entries: Array<Pick<BlocklistEntry, 'id' | 'phone' | 'list'>>; knownPayee?: boolean }> {
    const [row] = await queryRows<{ entries: Array<Pick<BlocklistEntry, 'id' | 'phone' | 'list'>>; known: boolean | null }>(
      this.db,
      `SELECT COALESCE((SELECT json_agg(json_build_object('id', b.id, 'phone', b.phone, 'list', b.list))
                          FROM orchestrator.risk_blocklist b WHERE b.phone = ANY($1::text[]) AND b.removed_at IS NULL), '[]'::json) AS entries,
              CASE WHEN $2::text IS NULL THEN NULL
                   ELSE EXISTS (SELECT 1 FROM orchestrator.risk_counterparties WHERE payer_id = $2 AND payee_id = $3) END AS known`,
      [phones, pair?.payerId ?? null, pair?.payeeId ?? null],
      // every create and confirm screens: parsed and planned once per connection
      { prepared: true },
    );
    return { entries: row.entries, knownPayee: row.known ?? undefined };
  }
}

function toEntry(row: EntryRow): BlocklistEntry {
  return {
    id: row.id,
    phone: row.phone,
    list: row.list,
    reason: row.reason,
    addedBy: row.added_by,
    addedAt: new Date(row.added_at).toISOString(),
    removedBy: row.removed_by,
    removedAt: row.removed_at ? new Date(row.removed_at).toISOString() : null,
    removalReason: row.removal_reason,
  };
}
