import { hasFault, parseFaults } from './fault-injection';

describe('X-Saga-Fault parsing', () => {
  it('reads mode:STEP pairs', () => {
    const faults = parseFaults('fail:WALLET, undo-fail:LOCAL_USER');
    expect(faults).toEqual([
      { mode: 'fail', step: 'WALLET' },
      { mode: 'undo-fail', step: 'LOCAL_USER' },
    ]);
    expect(hasFault(faults, 'fail', 'WALLET')).toBe(true);
    expect(hasFault(faults, 'crash', 'WALLET')).toBe(false);
    expect(parseFaults(undefined)).toEqual([]);
  });

  it.each(['explode:WALLET', 'fail', 'fail:wallet', 'fail:WALLET;DROP'])('refuses %s with a stable code', (header) => {
    expect(() => parseFaults(header)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});
