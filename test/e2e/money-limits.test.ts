import { randomUUID } from 'node:crypto';
import { ConfigVersionsService } from '../../apps/orchestrator/src/config-api/config-versions.service';
import type { ConfigSection } from '../../apps/orchestrator/src/config-api/config-sections';
import { MoneyPlatform, type TestUser, pay } from './money-platform';

/**
 * Limits and ceilings the public flow applies around the ledger, at, below and above each boundary
 * (default grids, docs/fees-and-limits.md).
 */
describe('money rules: limits and ceilings', () => {
  const p = new MoneyPlatform();
  let versions: ConfigVersionsService;
  let agent: TestUser;

  beforeAll(async () => {
    await p.start();
    versions = p.gateway.app.get(ConfigVersionsService);
    agent = await p.register('AGENT');
    await p.fund(agent.accounts.XAF, 3_000_000);
  });
  afterAll(() => p.stop());

  /** A customer with money, who has already paid `payee` once (so a large amount is not a first payment to a stranger). */
  async function payer(amount: number, payee?: TestUser): Promise<TestUser> {
    const user = await p.register('CUSTOMER');
    await p.fund(user.accounts.XAF, amount);
    if (payee) expect((await pay(p, user, { type: 'TRANSFER', amount: 100, clientPhone: payee.phone })).confirmed!.status).toBe(200);
    return user;
  }

  const create = (user: TestUser, body: Record<string, unknown>) =>
    p.call('POST', '/api/v1/intents', { token: user.token, body: { idempotencyKey: randomUUID(), ...body } });

  async function expectRefused(res: Awaited<ReturnType<typeof create>>, code: string, allowed?: number): Promise<void> {
    expect([res.status, res.body.code]).toEqual([422, code]);
    if (allowed !== undefined) expect(res.headers.get('x-limit-allowed')).toBe(String(allowed));
  }

  async function changeConfig<S extends ConfigSection>(section: S, change: (doc: never) => unknown): Promise<() => Promise<void>> {
    const active = await versions.active(section);
    await versions.append(section, {
      baseVersion: active.version,
      document: change(structuredClone(active.document) as never) as never,
      createdBy: 'test',
      reason: 'test change',
    });
    return async () => {
      const now = await versions.active(section);
      await versions.append(section, {
        baseVersion: now.version,
        document: active.document as never,
        createdBy: 'test',
        reason: 'test restore',
      });
    };
  }

  it('amount bounds of a transfer: 100 passes, 99 is refused with the minimum in X-Limit-Allowed', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(10_000);
    await expectRefused(await create(alice, { type: 'TRANSFER', amount: 99, clientPhone: bob.phone }), 'AMOUNT_BELOW_MINIMUM', 100);
    expect((await create(alice, { type: 'TRANSFER', amount: 100, clientPhone: bob.phone })).status).toBe(201);
  });

  it('single-operation limit of TIER_1 (100 000): at the limit passes, one franc more is refused', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(300_000, bob);
    await expectRefused(
      await create(alice, { type: 'TRANSFER', amount: 100_001, clientPhone: bob.phone }),
      'LIMIT_SINGLE_OPERATION_EXCEEDED',
      100_000,
    );
    expect((await create(alice, { type: 'TRANSFER', amount: 100_000, clientPhone: bob.phone })).status).toBe(201);
  });

  it('daily limit of TIER_1 (200 000): settled payments count; what remains passes, one franc more does not', async () => {
    const bob = await p.register('CUSTOMER');
    const alice = await payer(400_000, bob); // 100 already settled today
    for (const amount of [99_950, 99_950]) {
      expect((await pay(p, alice, { type: 'TRANSFER', amount, clientPhone: bob.phone })).confirmed!.status).toBe(200);
    }
    // 200 000 − 100 − 99 950 − 99 950 = 0 left.
    await expectRefused(await create(alice, { type: 'TRANSFER', amount: 100, clientPhone: bob.phone }), 'LIMIT_DAILY_EXCEEDED', 0);
    const carol = await payer(300_000, bob);
    expect((await pay(p, carol, { type: 'TRANSFER', amount: 99_900, clientPhone: bob.phone })).confirmed!.status).toBe(200);
    // 200 000 − 100 − 99 900 = 100 000 left, which is also the single limit: exactly it passes.
    expect((await pay(p, carol, { type: 'TRANSFER', amount: 100_000, clientPhone: bob.phone })).confirmed!.status).toBe(200);
    await expectRefused(await create(carol, { type: 'TRANSFER', amount: 100, clientPhone: bob.phone }), 'LIMIT_DAILY_EXCEEDED', 0);
  });

  it('balance cap of the credited TIER_1 customer (500 000): a cash-in up to the cap passes, one franc more is refused', async () => {
    const dave = await payer(450_000);
    const refused = await create(agent, { type: 'CASH_IN', amount: 50_001, clientPhone: dave.phone });
    await expectRefused(refused, 'LIMIT_BALANCE_CAP_EXCEEDED');
    // The room left is the cap minus Dave's balance: the agent is not told it (money-privacy.test.ts).
    expect(refused.headers.get('x-limit-allowed')).toBeNull();
    const { confirmed } = await pay(p, agent, { type: 'CASH_IN', amount: 50_000, clientPhone: dave.phone });
    expect(confirmed!.status).toBe(200);
    expect((await p.balance(dave.accounts.XAF)).balance).toBe(500_000);
  });

  it('agent daily ceiling: at the ceiling passes, above is refused (ceiling lowered by a new limits version)', async () => {
    const kofi = await p.register('AGENT');
    await p.fund(kofi.accounts.XAF, 100_000);
    const erin = await p.register('CUSTOMER');
    const restore = await changeConfig(
      'limits',
      (doc: { agents: Array<{ currency: string; dailyMax: number; perOperationMax: number }> }) => {
        Object.assign(
          doc.agents.find((a) => a.currency === 'XAF')!,
          { dailyMax: 30_000, perOperationMax: 30_000 },
        );
        return doc;
      },
    );
    try {
      expect((await pay(p, kofi, { type: 'CASH_IN', amount: 20_000, clientPhone: erin.phone })).confirmed!.status).toBe(200);
      await expectRefused(
        await create(kofi, { type: 'CASH_IN', amount: 10_001, clientPhone: erin.phone }),
        'AGENT_DAILY_CEILING_EXCEEDED',
        10_000,
      );
      expect((await pay(p, kofi, { type: 'CASH_IN', amount: 10_000, clientPhone: erin.phone })).confirmed!.status).toBe(200);
    } finally {
      await restore();
    }
  });
});
