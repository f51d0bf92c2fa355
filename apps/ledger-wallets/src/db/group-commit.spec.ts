import type { DbSession } from './db-session';
import type { ConfirmCall } from './execute-confirm-call';
import { GroupCommit, type GroupItem, type GroupRunner, MAX_GROUP, groupLockKeys } from './group-commit';
import { moneyLockKeys, uuidLockKey } from './lock-keys';

const HOT = 'ffffffff-0000-4000-8000-000000000001';
const session = (name: string) => ({ name }) as unknown as DbSession;
/** Distinct in their first 64 bits (the lock key). */
const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

/** The test's stand-in for a call: a label where the intent id goes. */
const labelOf = (call: ConfirmCall) => call.intent_id;
const label = (i: GroupItem) => labelOf(i.call);

function item(n: number, accounts = [uuid(1000 + n), HOT]): GroupItem {
  return {
    session: session(`s${n}`),
    intentId: uuid(n),
    accountIds: [...accounts].sort(),
    call: { intent_id: `stmt ${n}` } as ConfirmCall,
    alsoRelease: [],
  };
}

/** A runner whose single executions finish only when the test says so. */
function controllable() {
  const pending: { item: GroupItem; done: () => void }[] = [];
  const calls: { together: { session: DbSession; keys: bigint[]; statements: string[] }[]; single: string[]; waiting: number } = {
    together: [],
    single: [],
    waiting: 0,
  };
  let failTogether = false;
  const runner: GroupRunner = {
    single: (i) =>
      new Promise((resolve) => {
        calls.single.push(label(i));
        pending.push({ item: i, done: () => resolve([{ ok: true, sql: label(i) }]) });
      }),
    together: async (s, keys, batch) => {
      const statements = batch.map(labelOf);
      calls.together.push({ session: s, keys, statements });
      if (failTogether) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      return statements.map((sql) => [{ ok: true, sql }]);
    },
    waiting: (delta) => {
      calls.waiting += delta;
    },
  };
  const flush = async () => {
    while (pending.length > 0) pending.shift()!.done();
    await new Promise((r) => setImmediate(r));
  };
  return { runner, calls, pending, flush, failNextTogether: () => (failTogether = true) };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('group commit on hot accounts', () => {
  it('runs an operation whose accounts are idle alone, at once', async () => {
    const { runner, calls, flush } = controllable();
    const group = new GroupCommit(runner);
    const running = group.run(item(1));
    await settle();
    expect(calls.single).toEqual(['stmt 1']);
    await flush();
    expect(await running).toMatchObject({ rows: [{ sql: 'stmt 1' }], batchSize: 1, queuedMs: 0 });
  });

  it('queues what arrives while the account is busy and commits the queue as one transaction, in lock order', async () => {
    const { runner, calls, flush, pending } = controllable();
    const group = new GroupCommit(runner);
    const first = group.run(item(1));
    const second = group.run(item(2)); // the lane's first batch: alone, behind the first
    await settle();
    const rest = [3, 4, 5, 6].map((n) => group.run(item(n)));
    await settle();
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
    expect(calls.waiting).toBe(4);
    expect(pending).toHaveLength(2);
    await flush();
    const outcomes = await Promise.all([first, second, ...rest]);

    expect(calls.together).toHaveLength(1);
    const [batch] = calls.together;
    expect(batch.statements).toEqual(['stmt 3', 'stmt 4', 'stmt 5', 'stmt 6']);
    expect((batch.session as unknown as { name: string }).name).toBe('s3');
    // intents first, then accounts, each ascending: the order every other path follows
    const intents = [3, 4, 5, 6].map((n) => uuidLockKey(uuid(n)));
    const accounts = [...[3, 4, 5, 6].map((n) => uuid(1000 + n)), HOT].sort().map(uuidLockKey);
    expect(batch.keys).toEqual([...intents, ...accounts]);
    expect(outcomes.map((o) => o.rows[0].sql)).toEqual(['stmt 1', 'stmt 2', 'stmt 3', 'stmt 4', 'stmt 5', 'stmt 6']);
    expect(outcomes.map((o) => o.batchSize)).toEqual([1, 1, 4, 4, 4, 4]);
    expect(calls.waiting).toBe(0);
  });

  it('runs each operation of a failed batch again alone, each with its own outcome', async () => {
    const { runner, calls, flush, failNextTogether } = controllable();
    const group = new GroupCommit(runner);
    failNextTogether();
    const all = [1, 2, 3, 4].map((n) => group.run(item(n)));
    await settle();
    await flush(); // 1 and 2 alone; 3 and 4 then fail together
    await settle();
    await flush(); // 3 and 4 again, alone
    const outcomes = await Promise.all(all);
    expect(calls.together.map((t) => t.statements)).toEqual([['stmt 3', 'stmt 4']]);
    expect(calls.single).toEqual(['stmt 1', 'stmt 2', 'stmt 3', 'stmt 4']);
    expect(outcomes.map((o) => [o.rows[0].sql, o.batchSize])).toEqual([
      ['stmt 1', 1],
      ['stmt 2', 1],
      ['stmt 3', 1],
      ['stmt 4', 1],
    ]);
  });

  it('never runs again a batch that may have committed: every member gets that error, to retry with its key', async () => {
    const { runner, calls, flush, failNextTogether } = controllable();
    const unknown = new Error('outcome unknown');
    runner.mayHaveCommitted = (error) => error instanceof Error && error.message === 'could not serialize access';
    const group = new GroupCommit(runner);
    failNextTogether();
    const all = [1, 2, 3, 4].map((n) =>
      group.run(item(n)).then(
        (o) => o.rows[0].sql,
        (e: Error) => (e.message === 'could not serialize access' ? 'retry with key' : unknown.message),
      ),
    );
    await settle();
    await flush(); // 1 and 2 alone; 3 and 4 then fail together, with an outcome the runner cannot rule out
    await settle();
    await flush();
    expect(await Promise.all(all)).toEqual(['stmt 1', 'stmt 2', 'retry with key', 'retry with key']);
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
    expect(calls.waiting).toBe(0);
  });

  it("turns a synchronous throw of the runner into that operation's rejection, and the lane goes on", async () => {
    let calls = 0;
    const group = new GroupCommit({
      single: (i) => {
        calls++;
        if (label(i) === 'stmt 2') throw new Error('bad lock key');
        return new Promise((resolve) => setImmediate(() => resolve([{ sql: label(i) }])));
      },
      together: async (_s, _k, batch) => batch.map((call) => [{ sql: labelOf(call) }]),
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => group.run(item(n))));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.rows[0].sql : (o.reason as Error).message))).toEqual([
      'stmt 1',
      'bad lock key',
      'stmt 3',
    ]);
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('gives an error to its own operation only', async () => {
    const group = new GroupCommit({
      single: async (i) => {
        if (label(i) === 'stmt 2') throw new Error('refused');
        return [{ ok: true }];
      },
      together: async () => [],
    });
    const [a, b] = await Promise.allSettled([group.run(item(1)), group.run(item(2))]);
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: new Error('refused') });
  });

  it('keeps operations on unrelated accounts apart, and caps a batch', async () => {
    const { runner, calls, flush } = controllable();
    const group = new GroupCommit(runner);
    const lone = [1, 2, 3].map((n) => group.run(item(n, [uuid(2000 + n), uuid(3000 + n)])));
    await settle();
    expect(calls.single).toHaveLength(3);
    const hot = Array.from({ length: MAX_GROUP + 3 }, (_, k) => group.run(item(10 + k)));
    await settle();
    // 10 alone, 11 first in the lane (alone), 12… queued: one full batch, then the one left over (alone)
    for (let k = 0; k < 5; k++) await flush();
    await Promise.all([...lone, ...hot]);
    expect(calls.together.map((t) => t.statements.length)).toEqual([MAX_GROUP]);
    expect(calls.single).toHaveLength(3 + 3);
  });

  it('gives one operation alone exactly the keys moneyLockKeys gives it', () => {
    const i = item(7);
    expect(groupLockKeys([i])).toEqual(moneyLockKeys(i.accountIds, i.intentId));
  });

  it('runs operations on idle accounts at once while a slot is free, then batches what waits for the next free one', async () => {
    const { runner, calls, flush } = controllable();
    const group = new GroupCommit(runner, 2);
    const accounts = (n: number) => [uuid(2000 + n), uuid(3000 + n)].sort();
    const first = [1, 2].map((n) => group.run(item(n, accounts(n))));
    await settle();
    // Two slots: both alone, at once, as with no batching at all.
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
    const more = [3, 4, 5].map((n) => group.run(item(n, accounts(n))));
    await settle();
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
    expect(calls.waiting).toBe(3);
    await flush();
    await flush();
    await Promise.all([...first, ...more]);
    // The first slot to come free took all three as one transaction.
    expect(calls.together).toHaveLength(1);
    expect(calls.together[0].statements).toEqual(['stmt 3', 'stmt 4', 'stmt 5']);
    // Their locks: the intents, then all six accounts, each in ascending order.
    expect(calls.together[0].keys).toEqual(groupLockKeys([3, 4, 5].map((n) => item(n, accounts(n)))));
    expect(calls.waiting).toBe(0);

    // Quiet again: alone at once.
    const quiet = group.run(item(6, accounts(6)));
    await settle();
    expect(calls.single.at(-1)).toBe('stmt 6');
    await flush();
    expect(await quiet).toMatchObject({ batchSize: 1 });
  });

  it("still sends an operation on a busy account to that account's lane, not to a free slot", async () => {
    const { runner, calls, flush } = controllable();
    const group = new GroupCommit(runner, 4);
    const a = group.run(item(1));
    const b = group.run(item(2));
    const c = group.run(item(3));
    await settle();
    // 1 took a slot; 2 and 3 share HOT with it: its lane (2 alone first, then 3 behind it).
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
    for (let k = 0; k < 3; k++) await flush();
    await Promise.all([a, b, c]);
    expect(calls.single).toEqual(['stmt 1', 'stmt 2', 'stmt 3']);
  });

  it('reports a batch that failed as a whole before running its operations alone', async () => {
    const { runner, calls, flush, failNextTogether } = controllable();
    const fellBack: { size: number; code: unknown }[] = [];
    runner.fellBack = (size, error) => fellBack.push({ size, code: (error as { code?: string }).code });
    const group = new GroupCommit(runner, 1);
    failNextTogether();
    // 1 takes the one slot; 2, 3 and 4 wait for it: one batch, which fails.
    const all = [1, 2, 3, 4].map((n) => group.run(item(n, [uuid(2000 + n)])));
    for (let k = 0; k < 4; k++) await flush();
    await Promise.all(all);
    expect(calls.together).toHaveLength(1);
    expect(fellBack).toEqual([{ size: 3, code: '40001' }]);
    expect(calls.single).toEqual(['stmt 1', 'stmt 2', 'stmt 3', 'stmt 4']);
  });
});

describe('group commit at shutdown', () => {
  /** How an operation ended, captured at once (a refusal must not go unhandled while the test waits). */
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => 'done',
      (e: Error) => e.message,
    );

  it('refuses what is still queued and lets what runs finish', async () => {
    const { runner, calls, flush } = controllable();
    const group = new GroupCommit(runner);
    const running = [1, 2].map((n) => outcome(group.run(item(n)))); // 2: the lane's first batch, running at once
    await settle();
    const queued = [3, 4].map((n) => outcome(group.run(item(n))));
    await settle();
    group.stop(() => new Error('stopping'));
    await flush();
    expect(await Promise.all(running)).toEqual(['done', 'done']);
    expect(await Promise.all(queued)).toEqual(['stopping', 'stopping']);
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
    expect(calls.together).toEqual([]);
  });

  it('refuses the operations of a batch that failed after the stop instead of running them again alone', async () => {
    const { runner, calls, flush } = controllable();
    // The stop comes while the batch is in flight; then the batch fails (nothing committed).
    const stoppingMidBatch: GroupRunner = {
      ...runner,
      together: async (_s, _keys, batch) => {
        calls.together.push({ session: _s, keys: _keys, statements: batch.map(labelOf) });
        group.stop(() => new Error('stopping'));
        throw Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
      },
    };
    const group: GroupCommit = new GroupCommit(stoppingMidBatch);
    const running = [1, 2].map((n) => outcome(group.run(item(n))));
    await settle();
    const batch = [3, 4].map((n) => outcome(group.run(item(n))));
    await settle();
    await flush();
    expect(await Promise.all(running)).toEqual(['done', 'done']);
    expect(await Promise.all(batch)).toEqual(['stopping', 'stopping']);
    expect(calls.together.map((t) => t.statements)).toEqual([['stmt 3', 'stmt 4']]);
    expect(calls.single).toEqual(['stmt 1', 'stmt 2']);
  });
});
