import type { LedgerChainBreakKind } from '@mm/contracts';
import { type ChainEntryRow, GENESIS_HASH, chainLink } from './chain-link';
import { untraceableBreak } from './chain-sources';

export interface ChainBreak {
  kind: LedgerChainBreakKind;
  /** null only when the anchors' own records fail, which is no account's */
  accountId: string | null;
  entryId: string | null;
  chainSeq: number | null;
  transactionId: string | null;
  referenceId: string | null;
  expected: string;
  found: string;
  detail: string;
}

/** An account's head as its row holds it, or an anchored head. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** A head an anchor recorded for an account: anchor `n` signed `hash` at place `seq` of its chain. */
export interface AnchorPoint extends ChainHead {
  n: number;
}

const NONE: ReadonlySet<string> = new Set();

/** Where a chain starts: its first place, or a head an anchor signed (the anchor job checks only what came after it). */
export const CHAIN_START: ChainHead = { seq: 0, hash: GENESIS_HASH };

/** A break of the anchors' own records, which is no account's (the anchor job and a verification both report it). */
export function anchorRecordsBreak(detail: string): ChainBreak {
  return {
    kind: 'ANCHOR_MISMATCH',
    accountId: null,
    entryId: null,
    chainSeq: null,
    transactionId: null,
    referenceId: null,
    expected: 'a signed anchor',
    found: 'none',
    detail,
  };
}

function at(kind: LedgerChainBreakKind, e: ChainEntryRow, expected: string, found: string, detail: string): ChainBreak {
  return {
    kind,
    accountId: e.account_id,
    entryId: e.id,
    chainSeq: e.chain_seq === null ? null : Number(e.chain_seq),
    transactionId: e.transaction_id,
    referenceId: e.reference_id,
    expected,
    found,
    detail,
  };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * One account's chain, walked an entry at a time in chain order (an account may have millions of
 * entries: only the previous one is kept), then its head; and, as the walk passes them, the heads
 * every anchor recorded for the account. How a break is named (docs/ledger-chain.md):
 * - an entry whose fields (or its transaction's) no longer hash to its stored hash: EDITED;
 * - an entry without a link, at a place already taken, or beyond the head the account row holds: INSERTED;
 * - a place skipped (the next entry links over it), a head beyond the last entry, or the entry's
 *   transaction gone: DELETED;
 * - an entry that hashes right but whose predecessor's hash is not the one it links to, or a head
 *   that names another hash than the last entry's: the predecessor was rewritten and its hash
 *   recomputed, EDITED (named: the predecessor);
 * - an entry whose links hold but whose transaction no writer of the ledger names: UNTRACEABLE;
 * - an anchored head no longer the hash at its place: ANCHOR_MISMATCH, named at the earliest anchor
 *   that fails (history before it was rewritten and every hash after it recomputed; later anchors
 *   may have signed the rewrite).
 *
 * `points` are the account's anchored heads in anchor order, which is chain order: a head only
 * moves forward. `from` starts the walk after a head already checked (the anchor job walks only the
 * entries written since the previous anchor); entries at or before it are not expected.
 */
export class AccountWalk {
  chainBreak: ChainBreak | null = null;
  anchorBreak: ChainBreak | null = null;
  /** when each break's entry was written (microseconds since the epoch, as text); null: no entry to date it by */
  chainBreakUs: string | null = null;
  anchorBreakUs: string | null = null;
  private expectedSeq: number;
  private expectedPrev: string;
  private previous: ChainEntryRow | null = null;
  private nextPoint = 0;

  constructor(
    readonly accountId: string,
    private readonly head: ChainHead,
    private readonly points: readonly AnchorPoint[] = [],
    private readonly from: ChainHead = CHAIN_START,
    /** transactions no writer of the ledger names (chain-sources.ts): an entry of one is UNTRACEABLE */
    private readonly untraceable: ReadonlySet<string> = NONE,
  ) {
    this.expectedSeq = from.seq + 1;
    this.expectedPrev = from.hash;
  }

  add(e: ChainEntryRow): void {
    if (e.chain_seq !== null) this.passPoints(Number(e.chain_seq), e);
    if (this.chainBreak) return;
    this.chainBreak = this.link(e) ?? (this.untraceable.has(e.transaction_id) ? untraceableBreak(e) : null);
    if (this.chainBreak) {
      this.chainBreakUs = this.timeOf(this.chainBreak, e);
      return;
    }
    this.expectedPrev = e.chain_hash;
    this.expectedSeq = Number(e.chain_seq) + 1;
    this.previous = e;
  }

  finish(): this {
    // Anchored places beyond the last entry: their entries are gone.
    this.passPoints(Number.MAX_SAFE_INTEGER, null);
    if (this.chainBreak) return this;
    const lastSeq = this.expectedSeq - 1;
    const last = this.previous;
    if (this.head.seq > lastSeq) {
      this.chainBreak = {
        kind: 'DELETED',
        accountId: this.accountId,
        entryId: last?.id ?? null,
        chainSeq: last ? lastSeq : null,
        transactionId: last?.transaction_id ?? null,
        referenceId: last?.reference_id ?? null,
        expected: `head at place ${this.head.seq}`,
        found: `last entry at place ${lastSeq}`,
        detail: `the last ${plural(this.head.seq - lastSeq, 'entry is', 'entries are')} missing`,
      };
      this.chainBreakUs = last?.created_us ?? null;
    } else if (this.head.hash !== this.expectedPrev) {
      this.chainBreak = last
        ? at('EDITED', last, this.head.hash, this.expectedPrev, "rewritten with its hash recomputed: the account's head names another hash")
        : {
            kind: this.from.seq > 0 ? 'ANCHOR_MISMATCH' : 'EDITED',
            accountId: this.accountId,
            entryId: null,
            chainSeq: this.from.seq,
            transactionId: null,
            referenceId: null,
            expected: this.expectedPrev,
            found: this.head.hash,
            detail: `the account's head at place ${this.from.seq} is not the hash anchored there: history up to there was rewritten`,
          };
      this.chainBreakUs = last?.created_us ?? null;
    }
    return this;
  }

  /**
   * The account's earliest break: of its chain break and its anchor break, the one at the lower place
   * of the chain (an anchor break may name an earlier place than a later plain edit), with its time.
   */
  earliest(): { at: ChainBreak; us: string | null } | null {
    const place = (b: ChainBreak) => b.chainSeq ?? Number.MAX_SAFE_INTEGER;
    const { chainBreak: c, anchorBreak: a } = this;
    if (c && (!a || place(c) < place(a))) return { at: c, us: this.chainBreakUs };
    return a ? { at: a, us: this.anchorBreakUs } : null;
  }

  /** The time of the entry a break names: the entry being read or the one before it. */
  private timeOf(b: ChainBreak, e: ChainEntryRow | null): string | null {
    if (e && b.entryId === e.id) return e.created_us;
    return this.previous?.created_us ?? e?.created_us ?? null;
  }

  /** Checks every anchored head at a place up to `seq` against the entry at `seq` (null: past the last entry). */
  private passPoints(seq: number, e: ChainEntryRow | null): void {
    while (this.nextPoint < this.points.length && this.points[this.nextPoint].seq <= seq) {
      const p = this.points[this.nextPoint++];
      if (this.anchorBreak) continue;
      if (p.seq < seq || !e) this.anchorBreak = this.anchorMiss(p, null);
      else if (e.chain_hash !== p.hash) this.anchorBreak = this.anchorMiss(p, e);
      if (this.anchorBreak) this.anchorBreakUs = this.timeOf(this.anchorBreak, e);
    }
  }

  private link(e: ChainEntryRow): ChainBreak | null {
    if (e.chain_seq === null || e.chain_hash === null || e.chain_prev === null) {
      return at(
        'INSERTED',
        e,
        `place ${this.expectedSeq}`,
        'no link',
        'an entry without a link: written with the chain trigger switched off',
      );
    }
    const seq = Number(e.chain_seq);
    if (seq < this.expectedSeq)
      return at('INSERTED', e, `place ${this.expectedSeq}`, `place ${seq}`, `a second entry at place ${seq} of the chain`);
    if (seq > this.head.seq)
      return at('INSERTED', e, `head at place ${this.head.seq}`, `place ${seq}`, 'an entry beyond the head the account row holds');
    if (e.reference_id === null) return at('DELETED', e, 'its transaction', 'no transaction', "the entry's transaction row is gone");
    const recomputed = chainLink(e.chain_prev, e);
    if (recomputed !== e.chain_hash) {
      return at('EDITED', e, recomputed, e.chain_hash, 'the entry (or its transaction) no longer hashes to the hash it was written with');
    }
    if (seq > this.expectedSeq) {
      return at(
        'DELETED',
        e,
        `place ${this.expectedSeq}`,
        `place ${seq}`,
        `${plural(seq - this.expectedSeq, 'entry', 'entries')} missing before this one`,
      );
    }
    if (e.chain_prev !== this.expectedPrev) {
      if (this.previous) {
        return at(
          'EDITED',
          this.previous,
          e.chain_prev,
          this.expectedPrev,
          'rewritten with its hash recomputed: the next entry links to another hash',
        );
      }
      return this.from.seq === 0
        ? at('EDITED', e, this.expectedPrev, e.chain_prev, 'the first entry of the chain does not link to the start')
        : at(
            'ANCHOR_MISMATCH',
            e,
            this.expectedPrev,
            e.chain_prev,
            `the entry after place ${this.from.seq} does not link to the hash anchored there: history up to there was rewritten`,
          );
    }
    return null;
  }

  private anchorMiss(p: AnchorPoint, e: ChainEntryRow | null): ChainBreak {
    return {
      kind: 'ANCHOR_MISMATCH',
      accountId: this.accountId,
      entryId: e?.id ?? null,
      chainSeq: p.seq,
      transactionId: e?.transaction_id ?? null,
      referenceId: e?.reference_id ?? null,
      expected: p.hash,
      found: e?.chain_hash ?? 'no entry',
      detail: e
        ? `anchor ${p.n} signed another hash at place ${p.seq}: history up to there was rewritten`
        : `anchor ${p.n} signed place ${p.seq}, which no entry holds any more`,
    };
  }
}
