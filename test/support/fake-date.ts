/**
 * Fakes `Date` alone, from `now` on: sockets, timers, microtasks and the high-resolution clock keep
 * running for real, so a booted app or a live Redis connection behaves as usual while the process
 * reads another time. `advance`: the faked clock keeps ticking from `now` (else it stands still).
 * Undo with `jest.useRealTimers()`.
 */
export function fakeDateOnly(now: number, options: { advance?: boolean } = {}): void {
  jest.useFakeTimers({
    now,
    advanceTimers: options.advance ?? false,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}
