import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { b1Script, createB1Tables } from '../../../bench/ledger/b1-script';
import { createFundedAccounts, createReadyIntents, randomPairs } from '../../../bench/ledger/fixtures';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';
import { CHAIN_WALK_SQL, type ChainEntryRow, chainLink } from '../src/chain/chain-link';

const run = promisify(execFile);

/**
 * B1 of `bench:ledger` is meant to be the service's transfer SQL without the service
 * (docs/performance.md): its entries must carry the hash-chain links the confirm functions compute,
 * not leave them to the chain trigger, whose extra queries the service never runs. The script runs
 * here through pgbench, as the bench runs it, with that trigger switched off: an entry without its
 * link would then be refused by the column's NOT NULL.
 */
describe('bench:ledger B1 and the ledger chain', () => {
  let db: TestDatabase;
  let admin: Client;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new Client({ connectionString: db.adminUrl });
    await admin.connect();
    dir = mkdtempSync(join(tmpdir(), 'ledger-chain-b1-'));
  });

  afterAll(async () => {
    await admin?.end();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('links every entry it writes as the service would, with the chain trigger off', async () => {
    const accounts = await createFundedAccounts(admin, 4, 'USER', 'b1-chain-');
    const intents = await createReadyIntents(admin, randomPairs(accounts, 20));
    await createB1Tables(
      admin,
      accounts,
      intents.map((i) => i.id),
    );
    const script = join(dir, 'b1.sql');
    writeFileSync(script, b1Script());

    await admin.query(`ALTER TABLE ledger.ledgers DISABLE TRIGGER trg_ledgers_chain`);
    try {
      const url = new URL(db.adminUrl);
      await run(
        'pgbench',
        [
          ...['-M', 'prepared', '-n', '-c', '2', '-j', '2', '-t', '15', '--max-tries=10'],
          ...['-D', `nacc=${accounts.length}`, '-D', `nint=${intents.length}`, '-f', script],
          ...['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres'), db.name],
        ],
        { env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
      );
    } finally {
      await admin.query(`ALTER TABLE ledger.ledgers ENABLE TRIGGER trg_ledgers_chain`);
    }

    const [{ n }] = (await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ledger.transactions WHERE metadata ->> 'typeCode' = 'B1'`))
      .rows;
    expect(Number(n)).toBe(30);
    // Every entry recomputes, in the service's own code, to the hash it holds, each linked to the one before.
    const rows = (await admin.query<ChainEntryRow>(CHAIN_WALK_SQL)).rows.filter((r) => accounts.includes(r.account_id));
    expect(rows.length).toBe(4 + 60);
    let previous: ChainEntryRow | undefined;
    for (const row of rows) {
      const first = previous?.account_id !== row.account_id;
      expect(Number(row.chain_seq)).toBe(first ? 1 : Number(previous!.chain_seq) + 1);
      if (!first) expect(row.chain_prev).toBe(previous!.chain_hash);
      expect(chainLink(row.chain_prev, row)).toBe(row.chain_hash);
      previous = row;
    }
    // and every account's head is its last entry
    const heads = await admin.query<{ ok: boolean }>(
      `SELECT a.chain_head = (SELECT l.chain_hash FROM ledger.ledgers l WHERE l.account_id = a.id AND l.chain_seq = a.chain_seq)
              AND a.chain_seq = (SELECT count(*) FROM ledger.ledgers l WHERE l.account_id = a.id) AS ok
         FROM ledger.accounts a WHERE a.id = ANY($1::uuid[])`,
      [accounts],
    );
    expect(heads.rows.map((r) => r.ok)).toEqual([true, true, true, true]);
  });
});
