import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Where the milliseconds of one request go (docs/performance.md "Ledger"): named stages appended to the Server-Timing
 * header the platform writes (`total`), e.g. `total;dur=1.9, pre;dur=0.3, validate;dur=0.05,
 * conn;dur=0.02, lock;dur=0.1, sql;dur=1.1, serialize;dur=0.1`. A stage is closed by `lap` (time
 * since the previous mark) or added whole by `add` (a part of a round trip the database measured).
 * Cheap on purpose: one `performance.now()` per stage and a short array.
 */
export class StageTimer {
  private readonly stages: { name: string; ms: number }[] = [];
  private readonly notes: { name: string; value: number }[] = [];
  private mark: number;

  constructor(start = performance.now()) {
    this.mark = start;
  }

  /** Closes the running stage under `name` (repeated names add up) and starts the next one. */
  lap(name: string): void {
    const now = performance.now();
    this.add(name, now - this.mark);
    this.mark = now;
  }

  /** Adds `ms` to stage `name` without moving the mark. */
  add(name: string, ms: number): void {
    const stage = this.stages.find((s) => s.name === name);
    if (stage) stage.ms += ms;
    else this.stages.push({ name, ms });
  }

  /** Moves `ms` out of stage `from` into stage `to` (a round trip split by a time the database reported). */
  split(from: string, to: string, ms: number): void {
    const stage = this.stages.find((s) => s.name === from);
    const moved = stage ? Math.min(Math.max(ms, 0), stage.ms) : 0;
    if (stage) stage.ms -= moved;
    this.add(to, moved);
  }

  /** A count rather than a duration (e.g. how many transfers shared the transaction): `name;desc=value`. */
  note(name: string, value: number): void {
    this.notes.push({ name, value });
  }

  header(): string {
    return [...this.stages.map((s) => `${s.name};dur=${s.ms.toFixed(2)}`), ...this.notes.map((n) => `${n.name};desc=${n.value}`)].join(
      ', ',
    );
  }
}

const timers = new WeakMap<FastifyRequest, StageTimer>();

/**
 * The timer of a request, started at the handler: everything Fastify and Nest did before it (body
 * parsing, guard, pipes) is the first stage, `pre`.
 */
export function timeRequest(req: FastifyRequest, reply: FastifyReply): StageTimer {
  const timer = new StageTimer();
  timer.add('pre', reply.elapsedTime);
  timers.set(req, timer);
  return timer;
}

/**
 * Appends the stages to the platform's Server-Timing. Registered once by the ledger after the
 * platform's own onSend hook (which sets the header to `total;dur=…`), so it runs after it.
 */
export function registerStageTiming(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (req, reply, payload, done) => {
    const timer = timers.get(req);
    if (timer) {
      timer.lap('serialize');
      const total = reply.getHeader('server-timing');
      const stages = timer.header();
      reply.header('server-timing', total ? `${String(total)}, ${stages}` : stages);
    }
    done(null, payload);
  });
}
