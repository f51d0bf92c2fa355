import { DataSource } from 'typeorm';
import type { MoneyPlatform } from '../../../test/e2e/money-platform';

type RunnerQuery = (this: { connection: DataSource }, text: string | { text: string }, ...rest: unknown[]) => Promise<unknown>;

/**
 * Records every statement the gateway's DataSource sends while `recorded` runs: every statement
 * of a DataSource, transactions' START and COMMIT included, goes through its query runners'
 * `query`, and the orchestrator's are told apart by their connection. Install after `p.start()`;
 * `restore` in afterAll.
 */
export function statementRecorder(p: MoneyPlatform) {
  const sent: string[] = [];
  let recording = false;
  const orchestratorDb = p.gateway.app.get(DataSource);
  const runner = orchestratorDb.createQueryRunner();
  const proto = Object.getPrototypeOf(runner) as { query: RunnerQuery };
  void runner.release();
  const original = proto.query;
  proto.query = function (this: { connection: DataSource }, text: string | { text: string }, ...rest: unknown[]) {
    // a prepared statement arrives as pg's query config ({ name, text })
    if (recording && this.connection === orchestratorDb) sent.push(typeof text === 'string' ? text : text.text);
    return original.call(this, text, ...rest);
  };
  return {
    /** Runs `run` and answers its result with the statements sent meanwhile, in order. */
    async recorded<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
      sent.length = 0;
      recording = true;
      try {
        const result = await run();
        return { result, statements: [...sent] };
      } finally {
        recording = false;
      }
    },
    restore(): void {
      proto.query = original;
    },
  };
}
