import { Logger as NestLogger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { PinoNestLogger, createLogger } from './logger';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      String(chunk)
        .split('\n')
        .filter(Boolean)
        .forEach((l) => lines.push(JSON.parse(l)));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'svc', level: 'trace', destination }) };
}

describe('PinoNestLogger', () => {
  it('keeps the text, the fields and the context of a Nest Logger call', () => {
    const { lines, logger } = capture();
    NestLogger.overrideLogger(new PinoNestLogger(logger));
    const log = new NestLogger('Relay');
    log.log('plain');
    log.warn({ eventId: 'e1' }, 'dedup store unreachable');
    log.error(new Error('boom'));
    log.error('failed', 'Error: x\n    at f (a.ts:1:1)');
    expect(lines[0]).toMatchObject({ level: 30, msg: 'plain', context: 'Relay', service: 'svc' });
    expect(lines[1]).toMatchObject({ level: 40, msg: 'dedup store unreachable', eventId: 'e1', context: 'Relay' });
    expect(lines[2]).toMatchObject({ level: 50, msg: 'boom', context: 'Relay', err: expect.objectContaining({ message: 'boom' }) });
    expect(lines[3]).toMatchObject({ level: 50, msg: 'failed', context: 'Relay', stack: expect.stringContaining('at f') });
  });

  it('redacts secrets wherever they appear in fields', () => {
    const { lines, logger } = capture();
    new PinoNestLogger(logger).log({ body: { pin: '1234', otpCode: '123456', amount: 5 } }, 'Ctx');
    expect(JSON.stringify(lines[0])).not.toMatch(/1234|123456/);
    expect(lines[0]).toMatchObject({ body: { amount: 5, pin: '[redacted]' } });
  });
});
