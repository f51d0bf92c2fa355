import type { LedgerChainBreakKind } from '@mm/contracts';
import { type ChainEntryRow, GENESIS_HASH, chainLink } from './chain-link';

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
 * entries: only the previous one is kept), then its head and its anchored head. How a break is named
 * (docs/ledger-chain.md):
 * - an entry whose fields (or its transaction's) no longer hash to its stored hash: EDITED;
 * - an entry without a link, at a place already taken, or beyond the head the account row holds: INSERTED;
 * - a place skipped (the next entry links over it), a head beyond the last entry, or the entry's
 *   transaction gone: DELETED;
 * - an entry that hashes right but whose predecessor's hash is not the one it links to, or a head
 *   that names another hash than the last entry's: the predecessor was rewritten and its hash
 *   recomputed, EDITED (named: the predecessor);
 * - an anchored head no longer the hash at its place: ANCHOR_MISMATCH (history before the anchor was
 *   rewritten and every hash after it recomputed).
 */
export class AccountWalk {
  chainBreak: ChainBreak | null = null;
  anchorBreak: ChainBreak | null = null;
  private expectedSeq = 1;
  private expectedPrev = GENESIS_HASH;
  private previous: ChainEntryRow | null = null;
  private anchorSeen = false;

  constructor(
    readonly accountId: string,
    private readonly head: ChainHead,
    private readonly anchor: ChainHead | undefined,
  ) {}

  add(e: ChainEntryRow): void {
    if (this.anchor && e.chain_seq !== null && Number(e.chain_seq) === this.anchor.seq && !this.anchorSeen) {
      this.anchorSeen = true;
      if (e.chain_hash !== this.anchor.hash) this.anchorBreak = this.anchorMiss(e);
    }
    if (this.chainBreak) return;
    this.chainBreak = this.link(e);
    if (this.chainBreak) return;
    this.expectedPrev = e.chain_hash;
    this.expectedSeq = Number(e.chain_seq) + 1;
    this.previous = e;
  }

  finish(): this {
    if (this.anchor && !this.anchorSeen) this.anchorBreak = this.anchorMiss(null);
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
    } else if (last && this.head.hash !== this.expectedPrev) {
      this.chainBreak = at(
        'EDITED',
        last,
        this.head.hash,
        this.expectedPrev,
        "rewritten with its hash recomputed: the account's head names another hash",
      );
    }
    return this;
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
      return this.previous
        ? at(
            'EDITED',
            this.previous,
            e.chain_prev,
            this.expectedPrev,
            'rewritten with its hash recomputed: the next entry links to another hash',
          )
        : at('EDITED', e, this.expectedPrev, e.chain_prev, 'the first entry of the chain does not link to the start');
    }
    return null;
  }

  private anchorMiss(e: ChainEntryRow | null): ChainBreak {
    return {
      kind: 'ANCHOR_MISMATCH',
      accountId: this.accountId,
      entryId: e?.id ?? null,
      chainSeq: this.anchor!.seq,
      transactionId: e?.transaction_id ?? null,
      referenceId: e?.reference_id ?? null,
      expected: this.anchor!.hash,
      found: e?.chain_hash ?? 'no entry',
      detail: `the signed anchor names another hash at place ${this.anchor!.seq}: history up to there was rewritten`,
    };
  }
}
