import type { CaseSubjectKind } from '../case-facts';
import type { MonitoringDocument } from './monitoring-document';

/** The rules' codes: part of the API (alert filters, the console's labels). Add, never rename. */
export const RULE_CODES = ['STRUCTURING', 'PASS_THROUGH', 'DORMANT_REACTIVATION', 'AGENT_CYCLING', 'FAN_IN', 'AGENT_VELOCITY'] as const;
export type RuleCode = (typeof RULE_CODES)[number];

export const OPERATION_KINDS = ['TRANSFER', 'CASH_IN', 'CASH_OUT'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** The person holding one side of an operation (a ledger account with no person, such as a fee account, has none). */
export interface Party {
  userId: string;
  kind: CaseSubjectKind;
}

/** A completed operation as the rules see it (times in epoch milliseconds). */
export interface MonitoredOperation {
  eventId: string;
  transactionId: string;
  reference: string;
  type: OperationKind;
  amount: number;
  currency: string;
  sourceAccountId: string;
  destinationAccountId: string;
  source: Party | null;
  destination: Party | null;
  at: number;
}

/** Which of its stored operations a judgement reads about its subject. */
export interface HistoryNeed {
  /** from this time up to the trigger's (epoch ms) */
  from: number;
  /** the subject's side of the operations read: sent, received, or both */
  side: 'source' | 'destination' | 'either';
  /** only the operations between the subject and this person (AGENT_CYCLING: the customer) */
  counterpart?: string;
}

/**
 * One judgement a rule would make on an operation: about whom, and what it reads. The feed loads
 * exactly that (docs/monitoring.md#what-the-feed-loads) before calling `evaluate`.
 */
export interface Candidate {
  subject: Party;
  /** the subject's operations the rule reads; absent: none */
  history?: HistoryNeed;
  /** the rule reads when the subject was last active before the trigger (DORMANT_REACTIVATION) */
  lastActivity?: boolean;
}

/** What a rule may read while judging one operation for one subject: what its candidate asked for, never the database itself. */
export interface RuleContext {
  /** the operation being judged */
  readonly trigger: MonitoredOperation;
  /** the person judged (one of the rule's candidates for this trigger) */
  readonly subject: Party;
  readonly config: MonitoringDocument;
  /**
   * The subject's operations (either side) from `from` up to the trigger's time, oldest first: at
   * least every one the candidate's history asked for (more may be there; the rule filters). Reading
   * earlier than the candidate asked throws, so a rule cannot judge on history it did not load.
   */
  history(from: number): MonitoredOperation[];
  /** when the subject last took part in an operation before the trigger (any currency); null: never seen */
  lastActivityBefore(): number | null;
  /** when the subject finished registering; null when unknown */
  registeredAt(): number | null;
  /** the time of the oldest operation the feed holds (how far back "never seen" means anything) */
  readonly feedStartedAt: number | null;
}

/** One hit: the alert it would open, if no alert of the same rule covers the subject's window already. */
export interface RuleHit {
  subject: Party;
  currency: string;
  /** narrows the subject for rules about a pair (AGENT_CYCLING: the customer), else '' */
  scope: string;
  windowStart: number;
  windowEnd: number;
  /** why, in words, with the figures seen */
  reason: string;
  figures: Record<string, number | string>;
  /** the operations behind the hit, oldest first (the trigger among them) */
  operations: MonitoredOperation[];
}

/**
 * A monitoring rule: a pure judgement of one operation for one subject against that subject's
 * recent operations. `candidates` is cheap and reads nothing: it tells whether the operation can
 * make the rule fire at all, and for whom.
 */
export interface MonitoringRule {
  readonly code: RuleCode;
  /** how long after an operation a judgement of this rule may still read it (ms): the feed re-judges that far */
  lookbackMs(config: MonitoringDocument): number;
  /** the judgements this operation calls for ([] when it cannot make the rule fire) */
  candidates(trigger: MonitoredOperation, config: MonitoringDocument): Candidate[];
  /** one judgement: a hit about `ctx.subject`, or null */
  evaluate(ctx: RuleContext): RuleHit | null;
}

export const SECOND = 1_000;
export const DAY = 86_400_000;

/** The customer (or merchant) behind an operation: the payer of a transfer, the customer of a cash operation. */
export function customerSideOf(op: MonitoredOperation): Party | null {
  return op.type === 'CASH_IN' ? op.destination : op.source;
}

/** The agent of a cash operation (its float is the other side), else null. */
export function agentOf(op: MonitoredOperation): Party | null {
  const agent = op.type === 'CASH_IN' ? op.source : op.type === 'CASH_OUT' ? op.destination : null;
  return agent?.kind === 'AGENT' ? agent : null;
}

/** Integers grouped by thousands with a plain space: 1 250 000. */
export function money(amount: number, currency: string): string {
  return `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} ${currency}`;
}

/** A window length in words: 86400 → "24 h", 600 → "10 min". */
export function duration(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds >= 2 * 86_400) return `${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  return `${Math.round(seconds / 60)} min`;
}

export const sum = (ops: MonitoredOperation[]): number => ops.reduce((total, op) => total + op.amount, 0);
