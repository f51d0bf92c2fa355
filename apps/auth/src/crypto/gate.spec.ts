import { Gate } from './gate';

describe('Gate', () => {
  it('never runs more than its limit at once, runs everything, in arrival order', async () => {
    const gate = new Gate(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        gate.run(async () => {
          started.push(i);
          peak = Math.max(peak, ++running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
          return i;
        }),
      ),
    );
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(2);
  });

  it('frees the slot when a task fails', async () => {
    const gate = new Gate(1);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(() => Promise.resolve('ok'))).resolves.toBe('ok');
  });
});
