import type { DbSession } from '../db/db-session';
import { ANCHOR_ROWS_PER_FETCH, type AnchorHeadRow } from './chain-anchor-records';
import type { AnchorPoint } from './chain-walk';

/**
 * The heads the trusted anchors recorded, read beside the verification's walk through a second
 * cursor in the same order (account id, then anchor: the primary key's order, so no sort), so that
 * each account's anchored heads are at hand when the walk reaches the account. Only the rows of the
 * accounts the walk has reached are held.
 */
export class AnchorPointStream {
  private buffer: AnchorHeadRow[] = [];
  private next = 0;
  private exhausted: boolean;

  private constructor(
    private readonly s: DbSession,
    trustedThrough: number,
  ) {
    this.exhausted = trustedThrough <= 0;
  }

  /** Opens the cursor over the rows of anchors 1..trustedThrough (none: an empty stream). */
  static async open(s: DbSession, trustedThrough: number): Promise<AnchorPointStream> {
    const stream = new AnchorPointStream(s, trustedThrough);
    if (trustedThrough > 0) {
      await s.query(
        `DECLARE anchor_points NO SCROLL CURSOR FOR
           SELECT account_id, anchor_n::text AS anchor_n, seq::text AS seq, encode(hash, 'hex') AS hash
             FROM ledger.chain_anchor_heads WHERE anchor_n <= $1 ORDER BY account_id, anchor_n`,
        [trustedThrough],
      );
    }
    return stream;
  }

  /** Reads on until every row of the accounts up to `accountId` (null: of all accounts) is buffered. */
  async fillThrough(accountId: string | null): Promise<void> {
    while (!this.exhausted && (accountId === null || this.next === this.buffer.length || this.buffer.at(-1)!.account_id <= accountId)) {
      const page = await this.s.query<AnchorHeadRow>(`FETCH ${ANCHOR_ROWS_PER_FETCH} FROM anchor_points`);
      if (this.next > 0) {
        this.buffer = this.buffer.slice(this.next);
        this.next = 0;
      }
      this.buffer.push(...page);
      if (page.length < ANCHOR_ROWS_PER_FETCH) {
        this.exhausted = true;
        await this.s.exec('CLOSE anchor_points');
      }
    }
  }

  /** The buffered accounts before `accountId` (null: every one left), each with its anchored heads in anchor order. */
  takeBefore(accountId: string | null): Array<[string, AnchorPoint[]]> {
    const groups: Array<[string, AnchorPoint[]]> = [];
    while (this.next < this.buffer.length && (accountId === null || this.buffer[this.next].account_id < accountId)) {
      const id = this.buffer[this.next].account_id;
      groups.push([id, this.take(id)]);
    }
    return groups;
  }

  /** The anchored heads of `accountId`, when it is the next account buffered. */
  take(accountId: string): AnchorPoint[] {
    const points: AnchorPoint[] = [];
    while (this.next < this.buffer.length && this.buffer[this.next].account_id === accountId) {
      const r = this.buffer[this.next++];
      points.push({ n: Number(r.anchor_n), seq: Number(r.seq), hash: r.hash });
    }
    return points;
  }
}
