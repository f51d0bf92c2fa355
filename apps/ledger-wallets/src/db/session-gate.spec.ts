import { AppException } from '@mm/errors';
import { AT_CAPACITY, SHUTTING_DOWN, SessionGate } from './session-gate';

/** How a refused acquire ended: its code, status, Retry-After and message. */
async function refusal(p: Promise<unknown>) {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppException);
  const e = error as AppException;
  return { code: e.code, status: e.status, retryAfter: e.details?.headers?.['retry-after'], message: e.message };
}

describe('SessionGate: bounded admission to database sessions', () => {
  afterEach(() => jest.useRealTimers());

  it('admits up to its capacity at once, then first come first served as sessions are released', async () => {
    const gate = new SessionGate({ capacity: 2, queueLimit: 10, waitMs: 60_000 });
    const first = await gate.acquire();
    await gate.acquire();
    const order: number[] = [];
    const third = gate.acquire().then((release) => (order.push(3), release));
    const fourth = gate.acquire().then((release) => (order.push(4), release));
    expect(gate.waiting).toBe(2);
    first();
    first(); // a second call of the same release frees nothing more
    const releaseThird = await third;
    expect(order).toEqual([3]);
    expect(gate.waiting).toBe(1);
    releaseThird();
    (await fourth)();
    expect(order).toEqual([3, 4]);
    expect(gate.waiting).toBe(0);
  });

  it('refuses at once, with 503 and Retry-After, the request beyond the queue limit', async () => {
    const refused: string[] = [];
    const gate = new SessionGate({ capacity: 1, queueLimit: 1, waitMs: 60_000 }, { refused: (r) => refused.push(r) });
    const held = await gate.acquire();
    const queued = gate.acquire();
    expect(await refusal(gate.acquire())).toEqual({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: '1', message: AT_CAPACITY });
    expect(refused).toEqual(['queue_full']);
    held();
    await expect(queued).resolves.toEqual(expect.any(Function));
  });

  it('refuses a request that waited its whole bound, and hands the slot on to the next one', async () => {
    jest.useFakeTimers();
    const waiting: number[] = [];
    const gate = new SessionGate({ capacity: 1, queueLimit: 5, waitMs: 1_000 }, { waiting: (d) => waiting.push(d) });
    const held = await gate.acquire();
    const early = gate.acquire();
    jest.advanceTimersByTime(600);
    const late = gate.acquire();
    jest.advanceTimersByTime(500);
    expect(await refusal(early)).toMatchObject({ status: 503, retryAfter: '1', message: AT_CAPACITY });
    expect(gate.waiting).toBe(1);
    held();
    await expect(late).resolves.toEqual(expect.any(Function));
    // every entry into the queue was matched by a departure
    expect(waiting.reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('at shutdown refuses everything waiting, while held sessions finish and later requests are admitted as usual', async () => {
    const gate = new SessionGate({ capacity: 1, queueLimit: 5, waitMs: 60_000 });
    const held = await gate.acquire();
    const queued = [gate.acquire(), gate.acquire()];
    gate.refuseWaiting();
    for (const q of queued) expect(await refusal(q)).toMatchObject({ status: 503, retryAfter: '1', message: SHUTTING_DOWN });
    expect(gate.waiting).toBe(0);
    // A background job's query after the refusal: it waits its turn as any request would.
    const later = gate.acquire();
    held();
    await expect(later).resolves.toEqual(expect.any(Function));
  });
});
