import { decodeCursor, encodeCursor } from './cursor';

describe('keyset cursors', () => {
  it('round-trips the sort key of a row', () => {
    const key: [string, string] = ['2026-11-23T08:00:00.000Z', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01'];
    expect(decodeCursor(encodeCursor(key))).toEqual(key);
  });

  it.each([
    'garbage',
    encodeCursor(['not a date', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01']),
    // dates Date.parse accepts but PostgreSQL's timestamptz does not
    encodeCursor(['1', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01']),
    encodeCursor(['+275760-09-13T00:00:00.000Z', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01']),
    encodeCursor(['2026-02-30T00:00:00.000Z', '6f1d3c52-1a2b-4c3d-8e4f-5a6b7c8d9e01']),
    Buffer.from('[1,2]').toString('base64url'),
    '',
  ])('refuses %j as INVALID_CURSOR', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ code: 'INVALID_CURSOR' })] }),
    );
  });
});
