import { randomUUID } from 'node:crypto';
import { SETTLEMENT_CSV_COLUMNS, addCalendarDays, businessDayBounds, businessDayOf } from '@mm/contracts';
import { type Json, PartnersPlatform } from '../../../test/e2e/partners-platform';
import { E2E_ADMIN } from '../../../test/e2e/partners-support';
import { callerKey } from '../../../test/support/test-env';
import { staffToken } from './backoffice-transactions-support';

/**
 * Settlement statements (docs/statements.md) on a day of hundreds of operations on one merchant,
 * every service real: payments by customers (three through partner orders paid by QR on the public
 * intent path, the rest as transfers on the ledger's intent path), payouts with their fees, corrections, a
 * reversal under maker-checker, and a balance carried from the day before. The statement must tie
 * to the ledger to the franc: opening, every line and closing compared with SQL over the ledger's
 * own tables; then who may read it, and the CSV.
 */
const dayStart = (day: string) => Date.parse(businessDayBounds(day).from);

const p = new PartnersPlatform();
/** the business day the operations began on, and the day before: from one clock reading */
let today: string;
let yesterday: string;
/** the business day the operations ended on: `today`, unless the setup ran past midnight (WAT) */
let lastDay: string;
/** the query covering every operation of the setup: one day, or two when the setup crossed midnight */
let opsDays: string;
let admin: string;
let merchant: { token: string; merchantId: string; account: string; xofAccount: string };
let otherMerchant: { token: string; merchantId: string };
let keys: { reader: string; writerOnly: string; stranger: string; readerTest: string };
const qrPayments: Array<{ orderId: string; externalReference: string; transactionId: string }> = [];
const expected = { payments: 0, fees: 0, payouts: 0, corrections: 0, reversals: 0 };

async function register(kind: 'merchant' | 'customer', phone: string): Promise<{ token: string; merchantId?: string; accounts: Json }> {
  const person = { phone, pin: '2580', firstName: 'Awa', lastName: 'Test', countryCode: 'CM' };
  const res =
    kind === 'merchant'
      ? await p.call('POST', '/api/orchestrator/auth/register/merchant', {
          body: { ...person, businessName: `Boutique ${phone.slice(-3)}`, category: 'RETAIL' },
        })
      : await p.call('POST', '/api/orchestrator/auth/register', { body: person });
  if (res.status !== 201) throw new Error(`register ${kind} ${res.status} ${res.text}`);
  return { token: await p.login(phone, person.pin), merchantId: res.body.merchantId, accounts: res.body.accounts };
}

async function ledger(method: string, path: string, body?: unknown, caller: 'orchestrator' | 'ops' = 'orchestrator', token?: string) {
  const res = await fetch(`${p.ledger.url}${path}`, {
    method,
    headers: {
      'x-service-key': callerKey(caller),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function fund(accountId: string, amount: number): Promise<void> {
  const res = await ledger('PUT', `/v1/accounts/${accountId}/balance/add`, { amount, reason: 'test funding', createdBy: 'test' }, 'ops');
  if (res.status !== 200) throw new Error(`fund ${res.status} ${JSON.stringify(res.body)}`);
}

/** Who initiates the direct ledger transfers: a registered customer whose PIN auth checks (set in beforeAll). */
let initiator: { id: string; token: string };

/**
 * The one initiator's PIN checks, one at a time (the ledger calls around them stay concurrent): auth
 * takes one of the account's PIN attempts before it checks a PIN, so five checks of one person in
 * flight at once lock the account, right PIN or not (a CI run on a loaded machine got 423 here).
 */
let pinChecks: Promise<unknown> = Promise.resolve();
function oneCheckAtATime<T>(check: () => Promise<T>): Promise<T> {
  const next = pinChecks.then(check, check);
  pinChecks = next.catch(() => undefined);
  return next;
}

/**
 * A transfer on the ledger's intent path, as the orchestrator drives it: intent (hold), PIN_VERIFIED
 * with the consent proof auth's check-pin issues to the initiator, then SUCCEEDED with its context.
 */
async function transfer(source: string, destination: string, amount: number, fee = 0): Promise<string> {
  const actor = { id: initiator.id };
  const created = await ledger('POST', '/v1/internal/intents', {
    idempotencyKey: randomUUID(),
    type: 'TRANSFER',
    sourceAccountId: source,
    destinationAccountId: destination,
    amount,
    fee,
    currency: 'XAF',
    actor,
  });
  if (created.status !== 201) throw new Error(`intent ${created.status} ${JSON.stringify(created.body)}`);
  const intentId = created.body.intentId as string;
  const { status, consentProof } = await oneCheckAtATime(async () => {
    const check = await fetch(`${p.auth.url}/auth/check-pin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${initiator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pin: '2580', intentId }),
    });
    return { status: check.status, ...((await check.json()) as { consentProof?: string; code?: string }) };
  });
  if (status !== 200 || !consentProof) throw new Error(`check-pin ${status}`);
  const pin = await ledger('POST', `/v1/internal/intents/${intentId}/transition`, { toStatus: 'PIN_VERIFIED', actor, consentProof });
  if (pin.status !== 200) throw new Error(`pin ${pin.status} ${JSON.stringify(pin.body)}`);
  const done = await ledger('POST', `/v1/internal/intents/${intentId}/transition`, {
    toStatus: 'SUCCEEDED',
    actor,
    executionContext: {
      sourceAccountId: source,
      destinationAccountId: destination,
      amount,
      currency: 'XAF',
      ...(fee ? { fee: { amount: fee } } : {}),
      createdBy: 'statement-test',
      metadata: { typeCode: 'P2P' },
    },
  });
  if (done.status !== 200) throw new Error(`transfer ${done.status} ${JSON.stringify(done.body)}`);
  return done.body.transactionId as string;
}

/** The user id an access token was issued to (its `sub`). */
const subjectOf = (token: string): string => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;

async function integration(name: string): Promise<{ id: string; live: string; test: string }> {
  const res = await p.call('POST', '/api/admin/partners/integrations', {
    token: admin,
    body: { name, technicalContactEmail: 'tech@pos.example', webhookUrl: p.receiver.url },
  });
  if (res.status !== 201) throw new Error(`integration ${res.status} ${res.text}`);
  return { id: res.body.integration.id, live: res.body.apiKeys.live.key, test: res.body.apiKeys.test.key };
}

async function connect(key: string, phone: string, scopes: string[]): Promise<void> {
  const request = await p.call('POST', '/api/partners-public/connections/request', {
    key,
    body: { merchantPhone: phone, scopes, requestedReason: 'Till payments' },
  });
  if (request.status !== 200) throw new Error(`connection ${request.status} ${request.text}`);
  const accepted = await p.call('POST', `/api/merchant/connections/${request.body.connectionId}/accept`, { token: merchant.token });
  if (accepted.body?.status !== 'active') throw new Error(`accept ${accepted.status} ${accepted.text}`);
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

/** The independent view: sums and entries read straight from ledger.ledgers and ledger.accounts. */
async function ledgerFacts(accountId: string, start: number, end: number) {
  const q = (sql: string, params: unknown[]) => p.sql.query(sql, params).then((r) => r.rows);
  const signed = `COALESCE(sum(CASE kind WHEN 'CREDIT' THEN amount ELSE -amount END), 0)::bigint::text`;
  const [opening] = await q(`SELECT ${signed} AS v FROM ledger.ledgers WHERE account_id = $1 AND created_at < $2`, [
    accountId,
    new Date(start),
  ]);
  const [closing] = await q(`SELECT ${signed} AS v FROM ledger.ledgers WHERE account_id = $1 AND created_at < $2`, [
    accountId,
    new Date(end),
  ]);
  const [stored] = await q(`SELECT balance::text AS v FROM ledger.accounts WHERE id = $1`, [accountId]);
  const entries = await q(
    `SELECT l.id, l.kind, l.amount::bigint::text AS amount, l.transaction_id, t.reference_id
       FROM ledger.ledgers l JOIN ledger.transactions t ON t.id = l.transaction_id
      WHERE l.account_id = $1 AND l.created_at >= $2 AND l.created_at < $3 ORDER BY l.id`,
    [accountId, new Date(start), new Date(end)],
  );
  return { opening: Number(opening.v), closing: Number(closing.v), stored: Number(stored.v), entries };
}

beforeAll(async () => {
  await p.start();
  today = businessDayOf(new Date());
  yesterday = addCalendarDays(today, -1);
  admin = await p.login(E2E_ADMIN.phone, E2E_ADMIN.pin);
  const m = await register('merchant', '+237690610001');
  merchant = { token: m.token, merchantId: m.merchantId!, account: m.accounts.XAF, xofAccount: m.accounts.XOF };
  const m2 = await register('merchant', '+237690610002');
  otherMerchant = { token: m2.token, merchantId: m2.merchantId! };

  // The day before: a balance carried into today. The ledger books at the present instant only, so
  // yesterday's funding is written as its correction route writes one (balanced entries, balance),
  // dated yesterday noon.
  const suspense = (await p.sql.query(`SELECT id FROM ledger.accounts WHERE account_type = 'suspense' AND currency = 'XAF'`)).rows[0].id;
  const booked = new Date(dayStart(yesterday) + 12 * 3_600_000);
  const tx = randomUUID();
  const [debit, credit] = [randomUUID(), randomUUID()];
  await p.sql.query('BEGIN');
  await p.sql.query(
    `INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
     VALUES ($1, 'MMPTX000000YESTRDY', 'ADJUSTMENT', 250000, 0, 'XAF', 'statement-test', $2, $2, '{"reason":"opening float"}')`,
    [tx, booked],
  );
  await p.sql.query(
    `INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by, created_at)
     VALUES ($1, $3, $4, 'DEBIT', 250000, 'XAF', $2, 'statement-test', $6), ($2, $3, $5, 'CREDIT', 250000, 'XAF', $1, 'statement-test', $6)`,
    [debit, credit, tx, suspense, merchant.account, booked],
  );
  await p.sql.query(
    `UPDATE ledger.accounts SET balance = balance + d.delta, available_balance = available_balance + d.delta
       FROM (VALUES ($1::uuid, -250000::bigint), ($2::uuid, 250000::bigint)) d(id, delta) WHERE accounts.id = d.id`,
    [suspense, merchant.account],
  );
  await p.sql.query('COMMIT');

  // Partners: one reading (orders.read), one that only creates orders, one not connected.
  const reader = await integration('Caisse Rapide');
  const writer = await integration('Caisse Lente');
  const stranger = await integration('Caisse Inconnue');
  keys = { reader: reader.live, writerOnly: writer.live, stranger: stranger.live, readerTest: reader.test };
  await connect(keys.reader, '+237690610001', ['orders.write', 'orders.read']);
  await connect(keys.writerOnly, '+237690610001', ['orders.write']);

  // Three payments through partner orders, on the public path: order → QR → intent → PIN → confirm.
  const payer = await register('customer', '+237690610003');
  await fund(payer.accounts.XAF, 100_000);
  initiator = { id: subjectOf(payer.token), token: payer.token };
  for (const [i, amount] of [4_500, 12_000, 750].entries()) {
    const externalReference = i === 1 ? '=HYPERLINK("x"),till 2' : `TILL1-00${i}`;
    const order = await p.call('POST', '/api/partners-public/orders', {
      key: i === 2 ? keys.writerOnly : keys.reader,
      body: { merchantId: merchant.merchantId, amount, externalReference },
    });
    if (order.status !== 201) throw new Error(`order ${order.status} ${order.text}`);
    const intent = await p.call('POST', '/api/v1/intents', {
      token: payer.token,
      body: { type: 'TRANSFER', amount, qrToken: order.body.qrToken, idempotencyKey: randomUUID() },
    });
    const pin = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/verify-pin`, { token: payer.token, body: { pin: '2580' } });
    const confirmed = await p.call('POST', `/api/v1/intents/${intent.body.intentId}/confirm`, { token: payer.token });
    if (confirmed.status !== 200)
      throw new Error(`QR payment ${intent.status}/${pin.status}/${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    const row = (await p.sql.query(`SELECT id FROM ledger.transactions WHERE intent_id = $1`, [intent.body.intentId])).rows[0];
    qrPayments.push({ orderId: order.body.orderId, externalReference, transactionId: row.id });
    expected.payments += 1;
  }

  // Hundreds more: 12 customers paying the merchant 25 times each, 20 at a time.
  const customers: string[] = [];
  for (let i = 0; i < 12; i++) {
    const wallet = await ledger('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId: randomUUID(), currencies: ['XAF'] });
    const account = (wallet.body.accounts as Json[]).find((a) => a.accountType === 'customer').id as string;
    await fund(account, 1_000_000);
    customers.push(account);
  }
  const payments = customers.flatMap((c, i) => Array.from({ length: 25 }, (_, k) => ({ source: c, amount: 100 + i * 37 + k * 11 })));
  const paid: string[] = [];
  await inBatches(payments, 20, async (x) => paid.push(await transfer(x.source, merchant.account, x.amount)));
  expected.payments += payments.length;

  // Payouts with a fee each, a correction each way, and a payment reversed under maker-checker.
  await inBatches([0, 1, 2, 3, 4], 5, (i) => transfer(merchant.account, customers[i], 5_000 + i, 150));
  expected.payouts += 5;
  expected.fees += 5;
  await fund(merchant.account, 777);
  const drained = await ledger(
    'PUT',
    `/v1/accounts/${merchant.account}/balance/subtract`,
    { amount: 333, reason: 'till shortfall', createdBy: 'test' },
    'ops',
  );
  if (drained.status !== 200) throw new Error(`subtract ${drained.status} ${JSON.stringify(drained.body)}`);
  expected.corrections += 2;
  const compliance = await staffToken(p.call.bind(p) as never, admin, 'COMPLIANCE', '+237690610009', (phone, pin) => p.login(phone, pin));
  const submitted = await ledger(
    'POST',
    '/v1/internal/corrections',
    { idempotencyKey: randomUUID(), kind: 'REVERSAL', transactionId: paid[7], reason: 'paid the wrong shop' },
    'ops',
    admin,
  );
  if (submitted.status !== 201) throw new Error(`reversal ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const approved = await ledger('POST', `/v1/internal/corrections/${submitted.body.id}/approve`, { reason: 'checked' }, 'ops', compliance);
  if (approved.status !== 200) throw new Error(`reversal approval ${approved.status} ${JSON.stringify(approved.body)}`);
  expected.reversals += 1;

  // partners marks the QR orders paid from the ledger's outbox: wait until all three are.
  for (let i = 0; i < 100; i++) {
    const n = (await p.sql.query(`SELECT count(*)::int AS n FROM partners.orders WHERE status = 'paid'`)).rows[0].n;
    if (n === 3) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  lastDay = businessDayOf(new Date());
  opsDays = lastDay === today ? `date=${today}` : `from=${today}&to=${lastDay}`;
}, 120_000);

afterAll(() => p.stop());

const mine = (query: string) => p.call('GET', `/api/orchestrator/merchants/me/statements?${query}`, { token: merchant.token });

describe('a day of hundreds of operations on one merchant', () => {
  it('ties to the ledger to the franc: opening, every line, closing', async () => {
    const res = await mine(opsDays);
    expect(res.status).toBe(200);
    const s = res.body;
    const start = dayStart(today);
    const end = Date.parse(businessDayBounds(lastDay).to);
    expect(s.period).toEqual({
      fromDate: today,
      toDate: lastDay,
      utcOffset: '+01:00',
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
    });
    const facts = await ledgerFacts(merchant.account, start, end);
    expect(facts.opening).toBe(250_000);
    expect(s.openingBalance).toBe(facts.opening);
    expect(s.closingBalance).toBe(facts.closing);
    // the day is not over: its closing is the balance stored now, and it is not final
    expect(s.closingBalance).toBe(facts.stored);
    expect(s.final).toBe(false);
    expect(s.lines).toHaveLength(facts.entries.length);
    expect(s.lines.length).toBeGreaterThan(300);
    const lines = [...s.lines].sort((a: Json, b: Json) => (a.entryId < b.entryId ? -1 : 1));
    expect(lines.map((l: Json) => [l.entryId, l.direction, l.amount, l.transactionId, l.referenceId])).toEqual(
      facts.entries.map((e: Json) => [e.id, e.kind, Number(e.amount), e.transaction_id, e.reference_id]),
    );
    // each balanceAfter is the opening plus every line up to it, in the statement's order, which is
    // the order the ledger applied them (chain_seq): never below zero
    let running = s.openingBalance;
    for (const l of s.lines) {
      running += l.direction === 'CREDIT' ? l.amount : -l.amount;
      expect(l.balanceAfter).toBe(running);
      expect(l.balanceAfter).toBeGreaterThanOrEqual(0);
    }
    const chain = await p.sql.query(`SELECT id FROM ledger.ledgers WHERE account_id = $1 AND created_at >= $2 ORDER BY chain_seq`, [
      merchant.account,
      new Date(start),
    ]);
    expect(s.lines.map((l: Json) => l.entryId)).toEqual(chain.rows.map((r) => r.id));
    expect(running).toBe(s.closingBalance);
    expect(s.openingBalance + s.totalCredits - s.totalDebits).toBe(s.closingBalance);
    const count = (c: string) => s.totals.find((t: Json) => t.category === c).count;
    expect({
      payments: count('PAYMENT'),
      fees: count('FEE'),
      payouts: count('PAYOUT'),
      corrections: count('CORRECTION'),
      reversals: count('REVERSAL'),
    }).toEqual(expected);
    expect(s.totals.find((t: Json) => t.category === 'FEE')).toMatchObject({ credits: 0, debits: 750 });
    const reversal = s.lines.find((l: Json) => l.category === 'REVERSAL');
    expect(reversal).toMatchObject({ direction: 'DEBIT', transactionType: 'ADJUSTMENT' });
    expect(reversal.reversalOf).toMatch(/^[A-Z]{3}TX/);
  });

  it('names the partner order and external reference of each QR payment, and no order on the others', async () => {
    const s = (await mine(opsDays)).body;
    const withOrder = s.lines.filter((l: Json) => l.order !== null);
    expect(
      withOrder
        .map((l: Json) => ({ transactionId: l.transactionId, ...l.order }))
        .sort((a: Json, b: Json) => (a.orderId < b.orderId ? -1 : 1)),
    ).toEqual(
      qrPayments
        .map((q) => ({ transactionId: q.transactionId, orderId: q.orderId, externalReference: q.externalReference }))
        .sort((a, b) => (a.orderId < b.orderId ? -1 : 1)),
    );
    expect(withOrder.every((l: Json) => l.category === 'PAYMENT' && l.direction === 'CREDIT')).toBe(true);
  });

  it("yesterday's statement holds the carried balance, and a two-day one chains both", async () => {
    const before = (await mine(`date=${yesterday}`)).body;
    expect(before).toMatchObject({ openingBalance: 0, closingBalance: 250_000, totalCredits: 250_000, totalDebits: 0 });
    expect(before.lines).toEqual([
      expect.objectContaining({ referenceId: 'MMPTX000000YESTRDY', category: 'CORRECTION', balanceAfter: 250_000 }),
    ]);
    const both = (await mine(`from=${yesterday}&to=${lastDay}`)).body;
    const day = (await mine(opsDays)).body;
    expect(both.openingBalance).toBe(0);
    expect(both.closingBalance).toBe(day.closingBalance);
    expect(both.lines.map((l: Json) => l.entryId)).toEqual([before.lines[0].entryId, ...day.lines.map((l: Json) => l.entryId)]);
  });
});

describe('who may read a statement', () => {
  it('a merchant reads its own only: the other merchant sees its own empty account, and no staff route', async () => {
    const other = await p.call('GET', `/api/orchestrator/merchants/me/statements?date=${today}`, { token: otherMerchant.token });
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ merchantId: otherMerchant.merchantId, openingBalance: 0, closingBalance: 0, lines: [] });
    const staffRoute = await p.call('GET', `/api/backoffice/merchants/${merchant.merchantId}/statements?date=${today}`, {
      token: otherMerchant.token,
    });
    expect({ status: staffRoute.status, code: staffRoute.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
  });

  it("a connected partner with orders.read sees the account from its connection's activation, and only its own orders", async () => {
    const own = (await mine(opsDays)).body;
    const partner = await p.call('GET', `/api/partners-public/merchants/${merchant.merchantId}/statements?${opsDays}`, {
      key: keys.reader,
    });
    expect(partner.status).toBe(200);
    const [reader] = (
      await p.sql.query(
        `SELECT activated_at FROM partners.connections WHERE merchant_id = $1 AND status = 'active' AND livemode AND 'orders.read' = ANY(scopes)`,
        [merchant.merchantId],
      )
    ).rows;
    // the period starts at the activation; yesterday's carried balance is its opening
    expect(partner.body.period).toEqual({ ...own.period, start: reader.activated_at.toISOString() });
    expect(partner.body).toMatchObject({ openingBalance: 250_000, closingBalance: own.closingBalance, final: false });
    // every movement since is listed (the account ties), but only this partner's orders are named:
    // the order the other integration created paid the merchant too, and shows as order null
    expect(partner.body.lines.map((l: Json) => l.entryId)).toEqual(own.lines.map((l: Json) => l.entryId));
    const named = partner.body.lines.filter((l: Json) => l.order !== null).map((l: Json) => l.order.orderId);
    expect(named.sort()).toEqual([qrPayments[0].orderId, qrPayments[1].orderId].sort());
    const otherPartners = partner.body.lines.find((l: Json) => l.transactionId === qrPayments[2].transactionId);
    expect(otherPartners).toMatchObject({ category: 'PAYMENT', amount: 750, order: null });
    expect(own.lines.find((l: Json) => l.transactionId === qrPayments[2].transactionId).order.orderId).toBe(qrPayments[2].orderId);
    // a period over before the connection existed is refused
    const before = await p.call('GET', `/api/partners-public/merchants/${merchant.merchantId}/statements?date=${yesterday}`, {
      key: keys.reader,
    });
    expect({ status: before.status, code: before.body.code }).toEqual({ status: 403, code: 'SETTLEMENT_PERIOD_BEFORE_CONNECTION' });
  });

  it('a partner without the scope, a connection or a live key is refused', async () => {
    const path = `/api/partners-public/merchants/${merchant.merchantId}/statements?date=${today}`;
    const refused = async (key: string, url = path) => {
      const res = await p.call('GET', url, { key });
      return { status: res.status, code: res.body.code };
    };
    expect(await refused(keys.writerOnly)).toEqual({ status: 403, code: 'MISSING_SCOPE' });
    expect(await refused(keys.stranger)).toEqual({ status: 403, code: 'NO_ACTIVE_CONNECTION' });
    expect(await refused(keys.readerTest)).toEqual({ status: 403, code: 'SETTLEMENT_LIVE_KEY_REQUIRED' });
    expect(await refused(keys.reader, `/api/partners-public/merchants/${otherMerchant.merchantId}/statements?date=${today}`)).toEqual({
      status: 403,
      code: 'NO_ACTIVE_CONNECTION',
    });
    expect(await refused(keys.reader, `/api/partners-public/merchants/not-a-uuid/statements?date=${today}`)).toEqual({
      status: 403,
      code: 'NO_ACTIVE_CONNECTION',
    });
    expect((await p.call('GET', `/api/partners-public/merchants/${merchant.merchantId}/statements?date=${today}`, {})).status).toBe(401);
  });

  it('operators need statements.read, and each read is in the staff audit trail', async () => {
    const path = `/api/backoffice/merchants/${merchant.merchantId}/statements?date=${today}`;
    const res = await p.call('GET', path, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await mine(`date=${today}`)).body);
    const support = await staffToken(p.call.bind(p) as never, admin, 'SUPPORT', '+237690610010', (phone, pin) => p.login(phone, pin));
    const refused = await p.call('GET', path, { token: support });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    const audit = await p.sql.query(
      `SELECT outcome_status, target_type FROM orchestrator.staff_audit_trail
        WHERE action = 'GET /api/backoffice/merchants/:merchantId/statements' AND target_id = $1`,
      [merchant.merchantId],
    );
    expect(audit.rows.map((r) => [r.outcome_status, r.target_type]).sort()).toEqual([
      [200, 'merchant'],
      [403, 'merchant'],
    ]);
  });
});

describe('CSV', () => {
  it('is the JSON line for line, ties, and regenerates byte for byte whichever route serves it', async () => {
    const json = (await mine(`from=${yesterday}&to=${today}`)).body;
    const csv = await mine(`from=${yesterday}&to=${today}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="statement-${merchant.merchantId}-XAF-${yesterday}_${today}.csv"`,
    );
    const text: string = csv.body;
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = text.slice(0, -2).split('\r\n');
    expect(rows[0]).toBe(SETTLEMENT_CSV_COLUMNS.join(','));
    const col = (name: string) => SETTLEMENT_CSV_COLUMNS.indexOf(name as never);
    // the one quoted cell (a formula-like external reference) is checked on its own below
    const cells = rows.slice(1).map((r) => r.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/));
    expect(cells[0].slice(0, 2)).toEqual(['OPENING', json.period.start]);
    expect(Number(cells[0][col('balance_after')])).toBe(json.openingBalance);
    const last = cells[cells.length - 1];
    expect([last[0], Number(last[col('credit')]), Number(last[col('debit')]), Number(last[col('balance_after')])]).toEqual([
      'CLOSING',
      json.totalCredits,
      json.totalDebits,
      json.closingBalance,
    ]);
    const lineRows = cells.slice(1, -1);
    expect(lineRows).toHaveLength(json.lines.length);
    lineRows.forEach((r, i) => {
      const l = json.lines[i];
      expect([
        r[col('entry_id')],
        r[col('category')],
        r[col('credit')] || '',
        r[col('debit')] || '',
        Number(r[col('balance_after')]),
      ]).toEqual([
        l.entryId,
        l.category,
        l.direction === 'CREDIT' ? String(l.amount) : '',
        l.direction === 'DEBIT' ? String(l.amount) : '',
        l.balanceAfter,
      ]);
      expect(r[col('order_id')]).toBe(l.order?.orderId ?? '');
    });
    expect(text).toContain(`"'=HYPERLINK(""x""),till 2"`);
    // not final (today is not over): said on the OPENING and CLOSING rows
    expect([cells[0][col('final')], last[col('final')]]).toEqual(['false', 'false']);
    // again, and through the back office: the same bytes
    expect((await mine(`from=${yesterday}&to=${today}&format=csv`)).body).toBe(text);
    const staff = await p.call(
      'GET',
      `/api/backoffice/merchants/${merchant.merchantId}/statements?from=${yesterday}&to=${today}&format=csv`,
      {
        token: admin,
      },
    );
    expect(staff.text).toBe(text);
  });

  it('a final statement (ten days ago, over for days) says so and is the same bytes through both routes', async () => {
    const day = addCalendarDays(today, -10);
    const json = (await p.call('GET', `/api/orchestrator/merchants/me/statements?date=${day}`, { token: otherMerchant.token })).body;
    expect(json).toMatchObject({ final: true, openingBalance: 0, closingBalance: 0, lines: [] });
    const csv = (await p.call('GET', `/api/orchestrator/merchants/me/statements?date=${day}&format=csv`, { token: otherMerchant.token }))
      .text;
    const rows = csv.split('\r\n');
    expect([rows[1].split(',').at(-1), rows[2].split(',').at(-1)]).toEqual(['true', 'true']);
    const staff = await p.call('GET', `/api/backoffice/merchants/${otherMerchant.merchantId}/statements?date=${day}&format=csv`, {
      token: admin,
    });
    expect(staff.text).toBe(csv);
  });
});

describe('bad periods and options are refused with stable codes', () => {
  const shift = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  it.each([
    ['date and from together', () => `date=${today}&from=${today}&to=${today}`, 'SETTLEMENT_PERIOD_INVALID', null],
    ['from without to', () => `from=${today}`, 'SETTLEMENT_PERIOD_INVALID', null],
    ['nothing', () => '', 'SETTLEMENT_PERIOD_INVALID', null],
    ['32 days', () => `from=${shift(today, -31)}&to=${today}`, 'SETTLEMENT_PERIOD_INVALID', null],
    ['to before from', () => `from=${today}&to=${yesterday}`, 'SETTLEMENT_PERIOD_INVALID', null],
    ['a day not begun', () => `date=${shift(today, 2)}`, 'SETTLEMENT_PERIOD_INVALID', null],
    ['an impossible day', () => 'date=2026-02-30', 'SETTLEMENT_PERIOD_INVALID', null],
    ['a malformed day', () => 'date=27-11-2026', 'VALIDATION_ERROR', 'SETTLEMENT_PERIOD_INVALID'],
    ['a malformed offset', () => `date=${today}&utcOffset=%2B25:00`, 'VALIDATION_ERROR', 'SETTLEMENT_PERIOD_INVALID'],
    ['an unknown format', () => `date=${today}&format=xml`, 'VALIDATION_ERROR', 'SETTLEMENT_FORMAT_INVALID'],
    ['an unknown currency', () => `date=${today}&currency=EUR`, 'VALIDATION_ERROR', 'UNSUPPORTED_CURRENCY'],
  ])('%s', async (_, query, code, field) => {
    const res = await mine(query());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    if (field) expect(res.body.errors[0].code).toBe(field);
  });

  it("currency=XOF is the merchant's XOF account (every merchant has one), empty here", async () => {
    expect(merchant.xofAccount).toEqual(expect.any(String));
    const res = await mine(`date=${today}&currency=XOF`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ currency: 'XOF', accountId: merchant.xofAccount, openingBalance: 0, closingBalance: 0, lines: [] });
  });

  it('a period starting more than 400 days back is 400 SETTLEMENT_PERIOD_TOO_OLD', async () => {
    const res = await mine(`date=${addCalendarDays(today, -402)}`);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'SETTLEMENT_PERIOD_TOO_OLD' });
  });

  it('a day at another offset covers other instants', async () => {
    const res = await mine(`date=${yesterday}&utcOffset=-05:30`);
    expect(res.status).toBe(200);
    expect(res.body.period.start).toBe(new Date(Date.parse(`${yesterday}T00:00:00-05:30`)).toISOString());
  });
});
