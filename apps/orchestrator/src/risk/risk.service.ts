import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import { type SqlWrite, queryRows, runWrite } from '@mm/platform';
import { requestHash } from '../common/canonical-hash';
import type { ConfigVersion } from '../config-api/config-sections';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import { tierLimits } from '../limits/limit-rules';
import { BlocklistService } from './blocklist.service';
import { type RiskFacts, judge } from './risk-rules';
import type { RiskDecision, RiskInput, RiskParty, RiskReason, RiskSignal } from './risk.types';
import { VelocityService, velocityKey } from './velocity.service';

interface DecisionRow {
  id: string;
  operation_id: string;
  stage: RiskDecision['stage'];
  outcome: RiskDecision['outcome'];
  reason_code: RiskReason | null;
  rules_version: number;
  signals: RiskSignal[];
  created_at: Date;
}

const DECISION_COLUMNS = 'id, operation_id, stage, outcome, reason_code, rules_version, signals, created_at';

/** The versions a judgement uses: the risk thresholds, and the limits for the payer's single-operation maximum. */
export interface RiskConfig {
  risk: ConfigVersion<'risk'>;
  limits: ConfigVersion<'limits'>;
}

/** A judgement not yet stored (`RiskService.decide`), stored by `RiskService.store`. */
export interface RiskDraft {
  id: string;
  input: RiskInput;
  signals: RiskSignal[];
  reason: RiskReason | null;
  rulesVersion: number;
  inputHash: string;
}

export const RISK_REASON_HEADER = 'X-Risk-Reason';
export const RISK_DECISION_HEADER = 'X-Risk-Decision-Id';

/**
 * Explicit risk rules, judged at intent creation and again at confirm (statuses and lists may
 * have changed in between; velocity is judged once, at create, where the attempt is made). Every
 * decision is stored with its signals, the thresholds version and a digest of what it judged
 * (`judgedInputHash`). The first decision of an operation at a stage stands for that same input: a
 * retried create or confirm gets the same answer, so a confirm replayed after the ledger committed
 * is never refused afterwards. Another input under the same operation id (a create retried with
 * another customer or amount after a refusal left no intent behind) is judged afresh.
 */
@Injectable()
export class RiskService {
  private readonly logger = new Logger(RiskService.name);

  constructor(
    private readonly db: DataSource,
    private readonly config: ConfigVersionsService,
    private readonly blocklist: BlocklistService,
    private readonly velocity: VelocityService,
  ) {}

  /** The 403 RISK_REJECTED of a refusal already judged, with its reason and decision headers. */
  rejection(decision: RiskDecision): AppException {
    return new AppException('RISK_REJECTED', `The operation was refused by risk controls (${decision.reasonCode})`, {
      headers: { [RISK_REASON_HEADER]: decision.reasonCode ?? 'NOT_ALLOWED', [RISK_DECISION_HEADER]: decision.decisionId },
    });
  }

  /**
   * Judges the operation at its stage and stores the decision; never throws on a refusal. The
   * first decision of an operation at a stage for one judged input stands: the insert keeps it (ON
   * CONFLICT DO NOTHING) and a retry of the same input gets it back; a decision stored before
   * inputs were digested (no `input_hash`) still answers its operation and stage. Judging before
   * knowing whether a decision exists costs a retry some reads, and saves every first attempt, the
   * usual case, a statement; velocity counts an operation once however often it is judged (ZADD NX
   * on the operation id).
   */
  async evaluate(input: RiskInput, config?: RiskConfig): Promise<RiskDecision> {
    return this.store(await this.decide(input, config));
  }

  /**
   * Judges the operation at its stage without storing anything: the caller stores the draft with
   * `store`, in its own transaction beside what it writes for the same step (one commit).
   */
  async decide(input: RiskInput, config?: RiskConfig): Promise<RiskDraft> {
    const { risk, limits } = config ?? { risk: await this.config.active('risk'), limits: await this.config.active('limits') };
    const facts = await this.gather(input, risk.document.velocity.windowSeconds, limits);
    const { signals, reason } = judge(input, risk.document, facts);
    return { id: randomUUID(), input, signals, reason, rulesVersion: risk.version, inputHash: judgedInputHash(input) };
  }

  /**
   * Stores a judged draft and answers the decision that stands: the draft's, or the one an earlier
   * attempt at the same input (or a concurrent twin) stored first. `db`: the caller's transaction.
   */
  async store(draft: RiskDraft, db: DataSource | EntityManager = this.db): Promise<RiskDecision> {
    const { input, inputHash } = draft;
    const [row] = await runWrite<DecisionRow>(db, this.decisionWrite(draft));
    // An earlier attempt at this input (or a concurrent twin) decided first: its decision stands.
    const decision = row ? toDecision(row) : await this.find(input.operationId, input.stage, inputHash, db);
    if (!decision) throw new Error(`risk decision of ${input.operationId} vanished`);
    if (row && decision.outcome === 'REJECT') {
      this.logger.warn({
        msg: 'risk refusal',
        decisionId: decision.decisionId,
        stage: decision.stage,
        reason: decision.reasonCode,
        initiatorId: input.initiator.id,
      });
    }
    return decision;
  }

  /**
   * The insert of `store` as a write to run with others in one statement (see runWritesTogether):
   * answers the decision's row only when this write stored it (a decision that stands already is
   * kept, see `store`).
   */
  decisionWrite(draft: RiskDraft): SqlWrite {
    const { input, reason, inputHash } = draft;
    return {
      text: `INSERT INTO orchestrator.risk_decisions
         (id, operation_id, intent_id, stage, outcome, reason_code, signals, rules_version, initiator_id, device_id, type, amount, currency,
          input_hash)
       SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13, $14
        WHERE NOT EXISTS (SELECT 1 FROM orchestrator.risk_decisions WHERE operation_id = $2 AND stage = $4 AND input_hash IS NULL)
       ON CONFLICT (operation_id, stage, input_hash) DO NOTHING
       RETURNING ${DECISION_COLUMNS}`,
      params: [
        draft.id,
        input.operationId,
        input.intentId ?? null,
        input.stage,
        reason ? 'REJECT' : 'ACCEPT',
        reason,
        JSON.stringify(draft.signals),
        draft.rulesVersion,
        input.initiator.id,
        input.deviceId ?? null,
        input.type,
        input.amount,
        input.currency,
        inputHash,
      ],
    };
  }

  /**
   * After a successful payment: the payee is no longer new to the payer. Idempotent. A write the
   * confirm runs with the record's success in one statement (see runWritesTogether).
   */
  successWrite(input: Pick<RiskInput, 'operationId' | 'payer' | 'payee'>): SqlWrite {
    return {
      text: `INSERT INTO orchestrator.risk_counterparties (payer_id, payee_id, first_operation_id) VALUES ($1, $2, $3)
       ON CONFLICT (payer_id, payee_id) DO NOTHING`,
      params: [input.payer.id, input.payee.id, input.operationId],
    };
  }

  /**
   * With `inputHash`: the decision that answers this input of an operation at a stage (its own, else
   * a digest-less one from before digests). Without: the latest decision of the operation at the
   * stage (a confirm is always judged on the same input, so it has only one).
   */
  async find(
    operationId: string,
    stage: RiskDecision['stage'],
    inputHash?: string,
    db: DataSource | EntityManager = this.db,
  ): Promise<RiskDecision | undefined> {
    const [row] = await queryRows<DecisionRow>(
      db,
      `SELECT ${DECISION_COLUMNS} FROM orchestrator.risk_decisions
        WHERE operation_id = $1 AND stage = $2 AND ($3::text IS NULL OR input_hash = $3 OR input_hash IS NULL)
        ORDER BY (input_hash IS NULL) DESC, created_at DESC LIMIT 1`,
      [operationId, stage, inputHash ?? null],
    );
    return row ? toDecision(row) : undefined;
  }

  /** Every decision about an operation (compliance view), oldest first. */
  async decisionsOf(operationId: string): Promise<RiskDecision[]> {
    const rows = await queryRows<DecisionRow>(
      this.db,
      `SELECT ${DECISION_COLUMNS} FROM orchestrator.risk_decisions WHERE operation_id = $1 ORDER BY created_at, stage DESC`,
      [operationId],
    );
    return rows.map(toDecision);
  }

  /** What the rules need: list matches and a known payee in one statement, velocity from Redis at the same time. */
  private async gather(input: RiskInput, windowSeconds: number, limits: ConfigVersion<'limits'>): Promise<RiskFacts> {
    const parties: Array<['initiator' | 'payer' | 'payee', RiskParty]> = [
      ['initiator', input.initiator],
      ['payer', input.payer],
      ['payee', input.payee],
    ];
    const phones = [...new Set(parties.map(([, p]) => p.phone).filter((p): p is string => Boolean(p)))];
    const p2p = input.type === 'TRANSFER' || input.type === 'MERCHANT_PAYMENT';
    const [screened, velocity] = await Promise.all([
      this.blocklist.screen(phones, p2p ? { payerId: input.payer.id, payeeId: input.payee.id } : undefined),
      this.velocityOf(input, windowSeconds),
    ]);
    const blocklisted = parties.flatMap(([party, p]) =>
      screened.entries.filter((e) => e.phone === p.phone).map((e) => ({ party, entryId: e.id, list: e.list })),
    );
    const payerSingleMax =
      input.payer.kind === 'CUSTOMER' && input.payer.kycTier
        ? tierLimits(limits.document, input.currency, input.payer.kycTier).limits?.singleMax
        : undefined;
    return { blocklisted, velocity, knownPayee: screened.knownPayee, payerSingleMax };
  }

  /** Velocity is judged once, at create, where the attempt is made. */
  private async velocityOf(input: RiskInput, windowSeconds: number): Promise<RiskFacts['velocity']> {
    if (input.stage !== 'CREATE') return undefined;
    const keys = [velocityKey.party(input.initiator.kind, input.initiator.id)];
    if (input.deviceId) keys.push(velocityKey.device(input.deviceId));
    try {
      const [initiator, device] = await this.velocity.hit(keys, input.operationId, windowSeconds);
      return { initiator, device };
    } catch (error) {
      this.logger.warn({ msg: 'velocity counters unavailable: rule skipped', err: error });
      return 'UNAVAILABLE';
    }
  }
}

/**
 * What makes two judgements of an operation at one stage the same request: operation type, amount,
 * currency and who starts, pays and receives, in the canonical form the intents' request hash uses
 * (the stage is a column of the decision's key already). Statuses, tiers and the device are facts
 * read at judgement time, not part of the request: a genuine retry whose payer was frozen
 * meanwhile still gets its decision.
 */
export function judgedInputHash(input: RiskInput): string {
  return requestHash({
    type: input.type,
    amount: input.amount,
    currency: input.currency,
    initiator: input.initiator.id,
    payer: input.payer.id,
    payee: input.payee.id,
  });
}

function toDecision(row: DecisionRow): RiskDecision {
  return {
    decisionId: row.id,
    operationId: row.operation_id,
    stage: row.stage,
    outcome: row.outcome,
    reasonCode: row.reason_code,
    rulesVersion: Number(row.rules_version),
    signals: row.signals,
    createdAt: new Date(row.created_at).toISOString(),
  };
}
