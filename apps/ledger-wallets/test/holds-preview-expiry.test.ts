import { randomUUID } from 'node:crypto';
import { TEST_CHECKER, TEST_MAKER } from '../../../test/support/funding';
import { balanceOf, fundedAccount, invariants } from './ledger-harness';
import { SUPPORT, useOperatorLedger } from './operators';

/**
 * The ledger routes the back office drives: named holds, the preview of a correction, the expiry of
 * a correction nobody decided
 * (docs/ledger-corrections.md "Holds", "API (`/v1/internal/corrections`)", "Expiry"); each with an
 * operator token signed for this file.
 */
describe('ledger: named holds, correction preview and expiry', () => {
  const t = useOperatorLedger();
  const AUDITOR = { id: 'operator-auditor', roles: ['AUDITOR'] };

  const place = async (accountId: string, amount: number, key = randomUUID()) =>
    t.h.call('POST', '/v1/internal/holds', { idempotencyKey: key, accountId, amount, reason: 'case 4411' }, await t.as(TEST_CHECKER));

  it('a hold moves available to frozen and back, once per key; only its own release frees it', async () => {
    const account = await fundedAccount(t.h, 10_000);
    const key = randomUUID();
    const placed = await place(account, 4_000, key);
    expect([placed.status, placed.body.status, placed.body.amount]).toEqual([201, 'ACTIVE', 4_000]);
    expect(await balanceOf(t.h, account)).toMatchObject({ balance: 10_000, availableBalance: 6_000, frozenBalance: 4_000 });
    const replay = await place(account, 4_000, key);
    expect([replay.status, replay.body.id]).toEqual([200, placed.body.id]);
    expect((await balanceOf(t.h, account)).frozenBalance).toBe(4_000);

    // the retired anonymous unfreeze is no way around the named hold
    const unnamed = await t.h.call(
      'PUT',
      `/v1/accounts/${account}/balance/unfreeze`,
      { amount: 1, reason: 'unnamed unfreeze' },
      await t.as(TEST_MAKER),
    );
    expect([unnamed.status, unnamed.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await balanceOf(t.h, account)).frozenBalance).toBe(4_000);

    const releaseKey = randomUUID();
    const release = async (k: string) =>
      t.h.call(
        'POST',
        `/v1/internal/holds/${placed.body.id}/release`,
        { idempotencyKey: k, reason: 'case closed' },
        await t.as(TEST_CHECKER),
      );
    const released = await release(releaseKey);
    expect([released.status, released.body.status, released.body.released.reason]).toEqual([200, 'RELEASED', 'case closed']);
    expect(await balanceOf(t.h, account)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    expect((await release(releaseKey)).status).toBe(200);
    const other = await release(randomUUID());
    expect([other.status, other.body.code]).toEqual([409, 'HOLD_ALREADY_RELEASED']);
    expect((await balanceOf(t.h, account)).availableBalance).toBe(10_000);

    const journal = await t.h.admin.query(
      `SELECT action, amount::int FROM ledger.operator_actions WHERE hold_id = $1 ORDER BY created_at`,
      [placed.body.id],
    );
    expect(journal.rows).toEqual([
      { action: 'FREEZE', amount: 4_000 },
      { action: 'UNFREEZE', amount: 4_000 },
    ]);
    expect(await invariants(t.h.admin)).toMatchObject({ ledgerGaps: 0, splitGaps: 0 });
  });

  it('a hold above the available balance is 422 INSUFFICIENT_BALANCE; SUPPORT may not place but reads (the person view); AUDITOR reads', async () => {
    const account = await fundedAccount(t.h, 500);
    const short = await place(account, 501);
    expect([short.status, short.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    const bySupport = await t.h.call(
      'POST',
      '/v1/internal/holds',
      { idempotencyKey: randomUUID(), accountId: account, amount: 1, reason: 'not mine to place' },
      await t.as(SUPPORT),
    );
    expect([bySupport.status, bySupport.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    const bySupportRead = await t.h.call('GET', `/v1/internal/holds?accountId=${account}`, undefined, await t.as(SUPPORT));
    expect([bySupportRead.status, bySupportRead.body]).toEqual([200, []]);
    const read = await t.h.call('GET', `/v1/internal/holds?accountId=${account}`, undefined, await t.as(AUDITOR));
    expect([read.status, read.body]).toEqual([200, []]);
  });

  it('the preview shows the postings of the approval and the balances before and after; an expiry ends the correction with no checker', async () => {
    const account = await fundedAccount(t.h, 1_000);
    const submitted = await t.h.call(
      'POST',
      '/v1/internal/corrections',
      { idempotencyKey: randomUUID(), accountId: account, direction: 'DEBIT', amount: 1_500, reason: 'reconciliation' },
      await t.as(TEST_MAKER),
    );
    expect(submitted.status).toBe(201);
    const preview = await t.h.call('GET', `/v1/internal/corrections/${submitted.body.id}/preview`, undefined, await t.as(AUDITOR));
    expect(preview.status).toBe(200);
    expect(preview.body.entries).toEqual(
      expect.arrayContaining([
        { accountId: account, accountType: 'customer', direction: 'DEBIT', amount: 1_500 },
        expect.objectContaining({ accountType: 'suspense', direction: 'CREDIT', amount: 1_500 }),
      ]),
    );
    expect(preview.body.accounts.find((a: { accountId: string }) => a.accountId === account)).toEqual({
      accountId: account,
      accountType: 'customer',
      balanceBefore: 1_000,
      balanceAfter: -500,
      availableBefore: 1_000,
      availableAfter: -500,
      sufficient: false,
    });
    expect(preview.body.executable).toBe(false);

    const expired = await t.h.call('POST', `/v1/internal/corrections/${submitted.body.id}/expire`, { reason: 'request expired' });
    expect([expired.status, expired.body.status, expired.body.checker]).toEqual([200, 'EXPIRED', null]);
    expect(expired.body.events.at(-1)).toMatchObject({ event: 'expired', actorRoles: [], reason: 'request expired' });
    const approve = await t.h.call('POST', `/v1/internal/corrections/${submitted.body.id}/approve`, {}, await t.as(TEST_CHECKER));
    expect([approve.status, approve.body.code]).toEqual([409, 'CORRECTION_ALREADY_DECIDED']);
    expect((await balanceOf(t.h, account)).balance).toBe(1_000);
  });

  it('the orchestrator reads a hold and a correction by the idempotency key it used, with its service key alone', async () => {
    const account = await fundedAccount(t.h, 2_000);
    const placeKey = randomUUID();
    const placed = await place(account, 300, placeKey);
    const byPlaceKey = await t.h.call('GET', `/v1/internal/holds/by-key/${placeKey}`);
    expect([byPlaceKey.status, byPlaceKey.body.id, byPlaceKey.body.status]).toEqual([200, placed.body.id, 'ACTIVE']);
    const releaseKey = randomUUID();
    await t.h.call(
      'POST',
      `/v1/internal/holds/${placed.body.id}/release`,
      { idempotencyKey: releaseKey, reason: 'case closed' },
      await t.as(TEST_CHECKER),
    );
    const byReleaseKey = await t.h.call('GET', `/v1/internal/holds/by-key/${releaseKey}`);
    expect([byReleaseKey.status, byReleaseKey.body.id, byReleaseKey.body.status]).toEqual([200, placed.body.id, 'RELEASED']);
    const none = await t.h.call('GET', `/v1/internal/holds/by-key/${randomUUID()}`);
    expect([none.status, none.body.code]).toEqual([404, 'HOLD_NOT_FOUND']);

    const correctionKey = randomUUID();
    const submitted = await t.h.call(
      'POST',
      '/v1/internal/corrections',
      { idempotencyKey: correctionKey, accountId: account, direction: 'CREDIT', amount: 10, reason: 'reconciliation by key' },
      await t.as(TEST_MAKER),
    );
    const byKey = await t.h.call('GET', `/v1/internal/corrections/by-key/${correctionKey}`);
    expect([submitted.status, byKey.status, byKey.body.id, byKey.body.status, byKey.body.events.length]).toEqual([
      201,
      200,
      submitted.body.id,
      'PENDING_APPROVAL',
      1,
    ]);
    const missing = await t.h.call('GET', `/v1/internal/corrections/by-key/${randomUUID()}`);
    expect([missing.status, missing.body.code]).toEqual([404, 'CORRECTION_NOT_FOUND']);
    const notAKey = await t.h.call('GET', '/v1/internal/corrections/by-key/not-a-uuid');
    expect([notAKey.status, notAKey.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
