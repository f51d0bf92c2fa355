import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` in a transaction whose BEGIN travels with its first statement, in one round trip
 * (a simple-protocol message may carry several statements): a transaction whose first act is
 * taking locks costs no round trip of its own for opening. `first` carries no parameters, so it
 * must be built from constants and from values passed through pg's `escapeLiteral`. Committed when
 * `work` resolves, rolled back when it throws (the error is rethrown). `work` runs raw SQL only
 * (`m.query`, queryRows): TypeORM does not know of this BEGIN, and its own transactional calls
 * (`save`, `m.transaction`) would commit it early.
 */
export async function transactionOpenedWith<T>(db: DataSource, first: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  try {
    await runner.query(`BEGIN; ${first}`);
    const result = await work(runner.manager);
    await runner.query('COMMIT');
    return result;
  } catch (error) {
    // The work failed, or the BEGIN message or the COMMIT did: nothing stays open on a connection
    // going back to the pool.
    await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
