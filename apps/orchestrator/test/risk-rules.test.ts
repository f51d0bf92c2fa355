import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { runWrite } from '@mm/platform';
import { ConfigVersionsService } from '../src/config-api/config-versions.service';
import { BlocklistService } from '../src/risk/blocklist.service';
import { RiskService } from '../src/risk/risk.service';
import type { RiskInput, RiskParty } from '../src/risk/risk.types';
import { VelocityService } from '../src/risk/velocity.service';
import { OrchestratorHarness } from './pricing-harness';

let phoneSeq = 0;
const phone = () => `+23769${String(1_000_000 + phoneSeq++).slice(-7)}`;
const customer = (over: Partial<RiskParty> = {}): RiskParty => ({
  id: randomUUID(),
  kind: 'CUSTOMER',
  phone: phone(),
  status: 'ACTIVE',
  kycTier: 'TIER_1',
  ...over,
});

/** A transfer from `payer` to `payee` started by the payer, at the given stage. */
function transfer(payer: RiskParty, payee: RiskParty, amount = 5_000, over: Partial<RiskInput> = {}): RiskInput {
  return { stage: 'CREATE', operationId: randomUUID(), type: 'TRANSFER', amount, currency: 'XAF', initiator: payer, payer, payee, ...over };
}

/**
 * Risk rules against the real database and Redis, with the defaults of version 1 (10 operations
 * per customer, 60 per agent and 15 per device in 10 minutes; a first payment to a recipient
 * refused from 80 % of the payer tier's single-operation limit, i.e. 80 000 XAF for TIER_1).
 */
describe('risk: rules, stored decisions, blocklist', () => {
  const h = new OrchestratorHarness();
  let risk: RiskService;
  let blocklist: BlocklistService;

  beforeAll(async () => {
    await h.start();
    risk = h.get(RiskService);
    blocklist = h.get(BlocklistService);
  });
  afterAll(() => h.stop());

  /** Judged and stored as the intents judge; a refusal thrown as the 403 they answer. */
  const assertAccepted = async (input: RiskInput) => {
    const decision = await risk.evaluate(input);
    if (decision.outcome === 'REJECT') throw risk.rejection(decision);
    return decision;
  };

  const outcome = (input: RiskInput) =>
    assertAccepted(input).then(
      () => 'ACCEPT',
      (e: { status: number; code: string; message: string; details?: { headers?: Record<string, string> } }) => {
        expect(e.message).not.toMatch(/\d|blocklist|sanction|list|threshold|window|device|tier/i); // the reason code, never the internals
        return `${e.status} ${e.code} ${e.details?.headers?.['X-Risk-Reason']}`;
      },
    );

  it('a blocklisted phone on any side is refused with a generic reason; the decision keeps the evidence', async () => {
    const payer = customer();
    const payee = customer();
    const entry = await blocklist.add({ phone: payee.phone!, list: 'SANCTIONS', reason: 'UN list entry 42', addedBy: 'compliance-1' });
    const input = transfer(payer, payee);
    const error = await assertAccepted(input).catch((e: { details: { headers: Record<string, string> } }) => e);
    expect(error).toMatchObject({ status: 403, code: 'RISK_REJECTED' });
    const headers = (error as { details: { headers: Record<string, string> } }).details.headers;
    expect(headers['X-Risk-Reason']).toBe('NOT_ALLOWED');
    const [stored] = await risk.decisionsOf(input.operationId);
    expect(stored).toMatchObject({
      decisionId: headers['X-Risk-Decision-Id'],
      stage: 'CREATE',
      outcome: 'REJECT',
      reasonCode: 'NOT_ALLOWED',
      rulesVersion: 1,
    });
    expect(stored.signals).toContainEqual({
      rule: 'BLOCKLIST',
      outcome: 'REJECT',
      detail: { matches: [{ party: 'payee', entryId: entry.id, list: 'SANCTIONS' }] },
    });

    await expect(blocklist.add({ phone: payee.phone!, list: 'FRAUD', reason: 'again', addedBy: 'x' })).rejects.toMatchObject({
      code: 'BLOCKLIST_ENTRY_EXISTS',
      status: 409,
    });
    await blocklist.remove(entry.id, { removedBy: 'compliance-2', reason: 'delisted' });
    await expect(blocklist.remove(entry.id, { removedBy: 'compliance-2', reason: 'twice' })).rejects.toMatchObject({
      code: 'BLOCKLIST_ENTRY_NOT_FOUND',
      status: 404,
    });
    expect(await outcome(transfer(payer, payee))).toBe('ACCEPT');
    const history = await blocklist.list({ phone: payee.phone, includeRemoved: true, limit: 10, offset: 0 });
    expect(history).toEqual([
      expect.objectContaining({ id: entry.id, removedBy: 'compliance-2', removalReason: 'delisted', addedBy: 'compliance-1' }),
    ]);
    expect(await blocklist.list({ phone: payee.phone, limit: 10, offset: 0 })).toEqual([]);
  });

  it('a frozen initiator, or a frozen customer or merchant on the other side, is refused', async () => {
    expect(await outcome(transfer(customer({ status: 'FROZEN' }), customer()))).toBe('403 RISK_REJECTED ACCOUNT_FROZEN');
    const merchant: RiskParty = { id: randomUUID(), kind: 'MERCHANT', phone: phone(), status: 'FROZEN' };
    expect(await outcome(transfer(customer(), merchant, 1_000, { type: 'MERCHANT_PAYMENT' }))).toBe(
      '403 RISK_REJECTED COUNTERPARTY_UNAVAILABLE',
    );
    const agent: RiskParty = { id: randomUUID(), kind: 'AGENT', phone: phone(), status: 'ACTIVE' };
    const closed = customer({ status: 'CLOSED' });
    expect(await outcome({ ...transfer(agent, closed), type: 'CASH_IN', initiator: agent, payer: agent, payee: closed })).toBe(
      '403 RISK_REJECTED COUNTERPARTY_UNAVAILABLE',
    );
  });

  it('velocity: the 11th operation of a customer in the window is refused; a retried create counts once', async () => {
    const payer = customer();
    const first = transfer(payer, customer());
    expect(await outcome(first)).toBe('ACCEPT');
    expect(await outcome(first)).toBe('ACCEPT'); // same operation again
    for (let i = 0; i < 9; i++) expect(await outcome(transfer(payer, customer()))).toBe('ACCEPT');
    expect(await outcome(transfer(payer, customer()))).toBe('403 RISK_REJECTED VELOCITY');
    // an agent serves a queue: 11 in a row pass
    const agent: RiskParty = { id: randomUUID(), kind: 'AGENT', phone: phone(), status: 'ACTIVE' };
    for (let i = 0; i < 11; i++) {
      const c = customer();
      expect(await outcome({ ...transfer(agent, c), type: 'CASH_IN', payer: agent, payee: c })).toBe('ACCEPT');
    }
  });

  it('velocity per device: many accounts on one device', async () => {
    const deviceId = `device-${randomUUID()}`;
    for (let i = 0; i < 15; i++) expect(await outcome(transfer(customer(), customer(), 5_000, { deviceId }))).toBe('ACCEPT');
    expect(await outcome(transfer(customer(), customer(), 5_000, { deviceId }))).toBe('403 RISK_REJECTED VELOCITY');
    expect(await outcome(transfer(customer(), customer(), 5_000, { deviceId: `device-${randomUUID()}` }))).toBe('ACCEPT');
  });

  it('velocity counts in a sliding window', async () => {
    const velocity = h.get(VelocityService);
    const key = `test:${randomUUID()}`;
    const t0 = 1_800_000_000_000;
    expect(await velocity.hit([key], 'a', 60, t0)).toEqual([1]);
    expect(await velocity.hit([key], 'b', 60, t0 + 59_000)).toEqual([2]);
    expect(await velocity.hit([key], 'b', 60, t0 + 59_500)).toEqual([2]);
    expect(await velocity.hit([key], 'c', 60, t0 + 60_001)).toEqual([2]); // 'a' left the window
  });

  it('a first payment close to the tier limit is refused; the same amount to a known payee passes', async () => {
    const payer = customer();
    const payee = customer();
    expect(await outcome(transfer(payer, payee, 79_999))).toBe('ACCEPT');
    expect(await outcome(transfer(payer, payee, 80_000))).toBe('403 RISK_REJECTED UNUSUAL_AMOUNT');
    // the confirm's success write, twice: idempotent
    await runWrite(h.get(DataSource), risk.successWrite({ operationId: randomUUID(), payer, payee }));
    await runWrite(h.get(DataSource), risk.successWrite({ operationId: randomUUID(), payer, payee }));
    expect(await outcome(transfer(payer, payee, 80_000))).toBe('ACCEPT');
    // a better verified payer has a higher bar (TIER_2: 80 % of 500 000)
    expect(await outcome(transfer(customer({ kycTier: 'TIER_2' }), customer(), 399_999))).toBe('ACCEPT');
    // cash operations have no "new recipient"
    const agent: RiskParty = { id: randomUUID(), kind: 'AGENT', phone: phone(), status: 'ACTIVE' };
    const c = customer();
    expect(await outcome({ ...transfer(c, agent, 95_000), type: 'CASH_OUT', initiator: agent })).toBe('ACCEPT');
  });

  it('judged again at confirm: a freeze in between refuses the confirm; velocity is not re-judged', async () => {
    const payer = customer();
    const payee = customer();
    const create = transfer(payer, payee);
    expect(await outcome(create)).toBe('ACCEPT');
    const confirm: RiskInput = { ...create, stage: 'CONFIRM', intentId: randomUUID(), payee: { ...payee, status: 'FROZEN' } };
    expect(await outcome(confirm)).toBe('403 RISK_REJECTED COUNTERPARTY_UNAVAILABLE');
    const decisions = await risk.decisionsOf(create.operationId);
    expect(decisions.map((d) => `${d.stage}:${d.outcome}`)).toEqual(['CREATE:ACCEPT', 'CONFIRM:REJECT']);
    expect(decisions[1].signals).toContainEqual(expect.objectContaining({ rule: 'VELOCITY', outcome: 'SKIPPED' }));
  });

  it('the first decision of an operation at a stage stands (a confirm replayed after the ledger committed is not refused)', async () => {
    const payer = customer();
    const create = transfer(payer, customer());
    await risk.evaluate(create);
    const confirm: RiskInput = { ...create, stage: 'CONFIRM' };
    const decisions = await Promise.all(Array.from({ length: 10 }, () => risk.evaluate(confirm)));
    expect(new Set(decisions.map((d) => d.decisionId)).size).toBe(1);
    expect(decisions[0].outcome).toBe('ACCEPT');
    // frozen afterwards: the replayed confirm still gets the stored ACCEPT
    expect(await outcome({ ...confirm, initiator: { ...payer, status: 'FROZEN' }, payer: { ...payer, status: 'FROZEN' } })).toBe('ACCEPT');
    const { rows } = await h.sql.query(`SELECT count(*)::int AS n FROM orchestrator.risk_decisions WHERE operation_id = $1`, [
      create.operationId,
    ]);
    expect(rows[0].n).toBe(2);
  });

  it('Redis down: velocity is skipped (recorded as UNAVAILABLE), the other rules still apply', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const dead = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    try {
      const degraded = new RiskService(h.get(DataSource), h.get(ConfigVersionsService), blocklist, new VelocityService(dead));
      const accepted = await degraded.evaluate(transfer(customer(), customer()));
      expect(accepted.outcome).toBe('ACCEPT');
      expect(accepted.signals).toContainEqual({ rule: 'VELOCITY', outcome: 'UNAVAILABLE' });
      expect((await degraded.evaluate(transfer(customer({ status: 'FROZEN' }), customer()))).reasonCode).toBe('ACCOUNT_FROZEN');
    } finally {
      dead.disconnect();
    }
  });

  it('new thresholds apply at once and the decision names their version', async () => {
    const config = h.get(ConfigVersionsService);
    const active = await config.active('risk');
    const next = await config.append('risk', {
      baseVersion: active.version,
      document: { ...active.document, velocity: { ...active.document.velocity, maxPerCustomer: 2 } },
      createdBy: 'compliance',
      reason: 'tighten',
    });
    const payer = customer();
    expect(await outcome(transfer(payer, customer()))).toBe('ACCEPT');
    expect(await outcome(transfer(payer, customer()))).toBe('ACCEPT');
    const third = transfer(payer, customer());
    expect(await outcome(third)).toBe('403 RISK_REJECTED VELOCITY');
    expect((await risk.find(third.operationId, 'CREATE'))?.rulesVersion).toBe(next.version);
  });

  it('decisions are append-only in the database', async () => {
    const input = transfer(customer(), customer());
    const decision = await risk.evaluate(input);
    await expect(
      h.sql.query(`UPDATE orchestrator.risk_decisions SET outcome = 'REJECT' WHERE id = $1`, [decision.decisionId]),
    ).rejects.toThrow(/append-only/);
    await expect(h.sql.query(`DELETE FROM orchestrator.risk_decisions WHERE id = $1`, [decision.decisionId])).rejects.toThrow(
      /append-only/,
    );
  });
});
