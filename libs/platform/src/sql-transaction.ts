import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` in a transaction whose BEGIN travels with its first statement, in one round trip
 * (a simple-protocol message may carry several statements): a transaction whose first act is
 * taking locks costs no round trip of its own for opening. `first` carries no parameters, so it
 * must be built from constants and from values passed through pg's `escapeLiteral`. Committed when
 * `work` resolves, rolled back when it throws (the error is rethrown).
 */
export async function transactionOpenedWith<T>(db: DataSource, first: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  try {
    await runner.query(`BEGIN; ${first}`);
    let result: T;
    try {
      result = await work(runner.manager);
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    await runner.query('COMMIT');
    return result;
  } catch (error) {
    // A failed BEGIN message or COMMIT leaves nothing open on a connection going back to the pool.
    await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
