import * as pg from 'pg';

/** pg's result builder and value serializer, which its typings leave out. */
interface PgResult {
  command: string;
  rows: Record<string, unknown>[];
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): Record<string, unknown>;
  addRow(row: Record<string, unknown>): void;
  addCommandComplete(message: unknown): void;
}
const internals = pg as unknown as { Result: new () => PgResult; utils: { prepareValue(value: unknown): unknown } };
const prepareValue = (value: unknown) => internals.utils.prepareValue(value);

/** One statement of a batch with its values: the batch's named statement (prepared once per connection), or another text. */
export interface BatchStep {
  text: string;
  values?: unknown[];
}

/** What a batch got back: the results of the steps that completed, in order, and the error that stopped it. */
export interface BatchOutcome {
  /** one per completed step (command tag and rows), in order */
  results: { command: string; rows: Record<string, unknown>[] }[];
  /** the server's (or the connection's) error; the steps after the failed one were not run */
  error?: unknown;
  /** whether any of it was written to the server (a batch refused before that ran nothing) */
  sent: boolean;
}

/** The parts of pg's connection a batch writes to (pg-protocol's messages). */
interface Wire {
  parsedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void };
  parse(query: { name: string; text: string; types: unknown[] }): void;
  bind(config: { statement: string; values: unknown[] }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
}

/**
 * Several statements in ONE extended-protocol exchange, ended by a single Sync: written in one go,
 * answered with one ReadyForQuery, so the server flushes its answers once and the client reads
 * them once (node-postgres sends a Sync after every query, and PostgreSQL flushes at each). Steps
 * whose text is `text` use one named statement, `name`, parsed once per connection; the
 * others are parsed each time (short texts). After an error PostgreSQL skips every step up to the Sync: the
 * outcome says how many had completed. A pg "submittable": `client.query(batch)`, then `done`
 * (pg's `query_timeout` does not reach it; the ledger sets none).
 */
export class BatchQuery {
  private readonly results: BatchOutcome['results'] = [];
  private sent = false;
  private current = new internals.Result();
  private settle!: (outcome: BatchOutcome) => void;
  readonly done = new Promise<BatchOutcome>((resolve) => (this.settle = resolve));

  /** `name` and `text` are read by pg's client too: a ParseComplete for this batch marks `name` parsed as `text` */
  constructor(
    readonly name: string,
    readonly text: string,
    private readonly steps: BatchStep[],
  ) {}

  /**
   * Writes the whole batch, or nothing: a value pg cannot serialize, or the statement name already
   * prepared for another text, is returned as the batch's error before a byte is written (pg's
   * client then hands it to `handleError`).
   */
  submit(connection: Wire): Error | undefined {
    const known = connection.parsedStatements[this.name];
    if (known !== undefined && known !== this.text)
      return new Error(`statement ${this.name} is prepared for another text on this connection`);
    let values: unknown[][];
    try {
      values = this.steps.map((step) => (step.values ?? []).map(prepareValue));
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    this.sent = true;
    connection.stream.cork?.();
    try {
      // The named statement's Parse first, before any other: pg's client marks `name` parsed on
      // the first ParseComplete of the batch, which must then be the named statement's own.
      if (known === undefined && this.steps.some((s) => s.text === this.text)) {
        connection.parse({ name: this.name, text: this.text, types: [] });
      }
      this.steps.forEach((step, k) => {
        const named = step.text === this.text;
        if (!named) connection.parse({ name: '', text: step.text, types: [] });
        connection.bind({ statement: named ? this.name : '', values: values[k] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return undefined;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.current.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    this.current.addRow(this.current.parseRow(msg.fields));
  }

  handleCommandComplete(msg: unknown): void {
    this.current.addCommandComplete(msg);
    this.results.push({ command: this.current.command, rows: this.current.rows });
    this.current = new internals.Result();
  }

  handleEmptyQuery(): void {
    this.results.push({ command: '', rows: [] });
  }

  handleReadyForQuery(): void {
    this.settle({ results: this.results, sent: this.sent });
  }

  /** A server error (pg's client then forgets the batch: no ReadyForQuery reaches it), or the connection's. */
  handleError(error: unknown): void {
    this.settle({ results: this.results, error, sent: this.sent });
  }

  // Never asked of a batch (no COPY, no row limit); present because pg's client may call them.
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}
