import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DatabaseError, Pool, type PoolClient } from 'pg';
import { AppException } from '@mm/errors';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { retryLater } from '../db/session-gate';

/** How long a statement waits for a connection of its pool before the 503. */
const CONNECT_WAIT_MS = 2_000;

const BUSY = 'Statements are at capacity: the read was not started; retry after the Retry-After delay';

/**
 * The settlement statements' own connections
 * (docs/statements.md "Cost, and what keeps it away from payments"), apart from the money path: a
 * statement is a long read over many entries, and through `LedgerDb.withSession` it would hold one
 * of the DB_POOL_SIZE − 1 sessions payments are admitted to. Here at most
 * LEDGER_STATEMENT_POOL_SIZE statements run at once, each cancelled by PostgreSQL after
 * LEDGER_STATEMENT_TIMEOUT_MS; the payments' gate and pool never see them.
 */
@Injectable()
export class StatementReadPool implements OnModuleDestroy {
  private readonly pool: Pool;
  private readonly timeoutMs: number;
  /** connections whose session already carries the statement_timeout */
  private readonly timed = new WeakSet<PoolClient>();

  constructor(config: LedgerWalletsConfig) {
    this.pool = new Pool({
      connectionString: config.DATABASE_URL,
      max: config.LEDGER_STATEMENT_POOL_SIZE,
      connectionTimeoutMillis: CONNECT_WAIT_MS,
      idleTimeoutMillis: 30_000,
      // application_name is a start-up parameter PgBouncer knows; statement_timeout is not (it refuses
      // the connection, or drops the setting when told to ignore it), so that one is SET below.
      application_name: 'ledger-wallets statements',
    });
    this.timeoutMs = config.LEDGER_STATEMENT_TIMEOUT_MS;
    // An idle connection the server dropped must not take the process down.
    this.pool.on('error', () => undefined);
  }

  /** `fn` on one connection of the pool; a cancelled read is SETTLEMENT_STATEMENT_TIMEOUT, a full pool a 503 before anything ran. */
  async run<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) throw retryLater(BUSY);
      throw error;
    }
    let broken: Error | undefined;
    try {
      if (!this.timed.has(client)) {
        // Once per connection, for the whole session: the pooler runs in session mode, so the
        // setting stays with this client until it disconnects (and PgBouncer's reset drops it then).
        await client.query(`SELECT set_config('statement_timeout', $1, false)`, [`${this.timeoutMs}ms`]);
        this.timed.add(client);
      }
      return await fn(client);
    } catch (error) {
      // 57014 query_canceled: the statement_timeout struck
      if (error instanceof DatabaseError && error.code === '57014') {
        throw new AppException(
          'SETTLEMENT_STATEMENT_TIMEOUT',
          'The statement read took longer than allowed and was cancelled: ask for a shorter period, or later',
        );
      }
      if (!(error instanceof AppException)) broken = error as Error;
      throw error;
    } finally {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      client.release(broken);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.end();
  }
}
