import { randomUUID } from 'node:crypto';
import { callerKey } from '../../../../test/support/test-env';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ledger answers are read field by field
type Json = any;

/**
 * Pays through the ledger's internal API what the orchestrator's QR-pay path will pay: an intent
 * carrying the order's QR token, PIN verified, then SUCCEEDED with its execution context.
 */
export class LedgerPayments {
  /**
   * @param consent the payer's consent proof for the PIN step of an intent (auth's check-pin in the
   * end-to-end tests, a stand-in signer where auth is not booted)
   * @param keys it plays the orchestrator (wallets, intents: the only service that may move money at
   * the ledger) and, for the test funding, the operators; one string is used for every call
   */
  constructor(
    private readonly url: string,
    private readonly consent: (intentId: string, actorId: string) => Promise<string>,
    private readonly keys: string | { orchestrator: string; ops: string } = {
      orchestrator: callerKey('orchestrator'),
      ops: callerKey('ops'),
    },
  ) {}

  private async call(
    method: string,
    path: string,
    body?: unknown,
    as: 'orchestrator' | 'ops' = 'orchestrator',
  ): Promise<{ status: number; body: Json }> {
    const key = typeof this.keys === 'string' ? this.keys : this.keys[as];
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'x-service-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** A wallet of the owner type; returns its main account per currency. */
  async wallet(ownerType: 'USER' | 'MERCHANT', currencies = ['XAF', 'XOF']): Promise<Record<string, string>> {
    const res = await this.call('POST', '/v1/internal/wallets', { ownerType, ownerId: randomUUID(), currencies });
    if (res.status !== 201) throw new Error(`wallet: ${res.status} ${JSON.stringify(res.body)}`);
    const out: Record<string, string> = {};
    for (const a of res.body.accounts as { id: string; currency: string; accountType: string }[]) {
      if (!a.accountType.toLowerCase().includes('commission') && !out[a.currency]) out[a.currency] = a.id;
    }
    return out;
  }

  async fund(accountId: string, amount: number): Promise<void> {
    const res = await this.call(
      'PUT',
      `/v1/accounts/${accountId}/balance/add`,
      { amount, reason: 'test funding', createdBy: 'test' },
      'ops',
    );
    if (res.status !== 200) throw new Error(`fund: ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** The whole QR payment; returns the SUCCEEDED intent (transactionId, referenceId). */
  async payQr(args: {
    source: string;
    destination: string;
    amount: number;
    currency?: string;
    qrToken: string;
    payer?: string;
  }): Promise<Json> {
    const currency = args.currency ?? 'XAF';
    const payer = args.payer ?? 'payer-1';
    const created = await this.call('POST', '/v1/internal/intents', {
      idempotencyKey: randomUUID(),
      type: 'TRANSFER',
      sourceAccountId: args.source,
      destinationAccountId: args.destination,
      amount: args.amount,
      currency,
      qrToken: args.qrToken,
      actor: { id: payer, ip: '10.0.0.1', userAgent: 'jest' },
    });
    if (created.status !== 201) throw new Error(`intent: ${created.status} ${JSON.stringify(created.body)}`);
    const id = created.body.intentId as string;
    const pin = await this.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'PIN_VERIFIED',
      actor: { id: payer },
      consentProof: await this.consent(id, payer),
    });
    if (pin.status !== 200) throw new Error(`pin: ${pin.status} ${JSON.stringify(pin.body)}`);
    const done = await this.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: payer },
      executionContext: {
        sourceAccountId: args.source,
        destinationAccountId: args.destination,
        amount: args.amount,
        currency,
        metadata: { typeCode: 'QR_PAYMENT' },
      },
    });
    if (done.status !== 200) throw new Error(`succeed: ${done.status} ${JSON.stringify(done.body)}`);
    return done.body;
  }
}
