import { decodeRegulatoryCursor, encodeRegulatoryCursor } from './regulatory-reports';

describe('regulatory operations cursor', () => {
  it('decodes a cursor it issued', () => {
    const cursor = encodeRegulatoryCursor('2026-11-27T09:14:03.123456Z', 'MMPTX2611270A1B2C3');
    expect(decodeRegulatoryCursor(cursor)).toEqual(['2026-11-27T09:14:03.123456Z', 'MMPTX2611270A1B2C3']);
  });

  it.each(['2026-13-45T09:14:03.123456Z', '2026-02-30T09:14:03.123456Z', '2026-11-27T25:61:03.123456Z', '0000-01-01T00:00:00.000000Z'])(
    'refuses a well-shaped cursor whose instant does not exist (%s), instead of letting PostgreSQL fail on it',
    (instant) => {
      expect(decodeRegulatoryCursor(encodeRegulatoryCursor(instant, 'MMPTX2611270A1B2C3'))).toBeNull();
    },
  );

  it('refuses text that is not a cursor', () => {
    expect(decodeRegulatoryCursor('zzz')).toBeNull();
  });
});
