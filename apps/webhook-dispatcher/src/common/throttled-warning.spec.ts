import type { Logger } from '@nestjs/common';
import { throttledWarning } from './throttled-warning';

describe('throttledWarning', () => {
  afterEach(() => jest.useRealTimers());

  it('logs the first error, then at most one per interval', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const warn = jest.fn();
    const listener = throttledWarning({ warn } as unknown as Logger, 'connection error', 30_000);

    listener(new Error('ECONNREFUSED'));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenLastCalledWith({ msg: 'connection error', err: { message: 'ECONNREFUSED' } });

    jest.setSystemTime(1_000_000 + 29_000);
    listener(new Error('ECONNREFUSED'));
    expect(warn).toHaveBeenCalledTimes(1);

    jest.setSystemTime(1_000_000 + 31_000);
    listener(new Error('ETIMEDOUT'));
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenLastCalledWith({ msg: 'connection error', err: { message: 'ETIMEDOUT' } });
  });

  it('keeps its own clock per listener', () => {
    const warn = jest.fn();
    const a = throttledWarning({ warn } as unknown as Logger, 'a');
    const b = throttledWarning({ warn } as unknown as Logger, 'b');
    a(new Error('x'));
    b(new Error('x'));
    expect(warn.mock.calls.map(([line]) => (line as { msg: string }).msg)).toEqual(['a', 'b']);
  });
});
