import { MAX_SNAPSHOT_BYTES, boundSnapshot } from './person-snapshot';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

function view(holds: number, operations: number) {
  return {
    userId: 'u-1',
    kind: 'CUSTOMER',
    identity: { firstName: 'Awa', lastName: 'Ndiaye', phone: '+237690000001' },
    status: 'active',
    holds: { unavailable: null, items: Array.from({ length: holds }, (_, i) => ({ holdId: `h-${i}`, reason: 'x'.repeat(200) })) },
    recentOperations: { unavailable: null, items: Array.from({ length: operations }, (_, i) => ({ reference: `MMPTX${i}` })) },
  };
}

describe('boundSnapshot', () => {
  it('keeps a view that fits as it is, nothing cut', () => {
    const small = view(3, 20);
    const bounded = boundSnapshot(small);
    expect(bounded.snapshot).toEqual(small);
    expect(bounded.cut).toEqual({});
    expect(bounded.bytes).toBe(bytes(small));
    // a copy: the caller's view is not shortened later by accident
    expect(bounded.snapshot).not.toBe(small);
  });

  it('cuts the heaviest list to its first items until the view fits, and says what it had', () => {
    const large = view(2_000, 20);
    expect(bytes(large)).toBeGreaterThan(MAX_SNAPSHOT_BYTES);
    const bounded = boundSnapshot(large);
    expect(bytes(bounded.snapshot)).toBeLessThanOrEqual(MAX_SNAPSHOT_BYTES);
    expect(bounded.bytes).toBe(bytes(bounded.snapshot));
    expect(bounded.cut).toEqual({ 'holds.items': 2_000 });
    const holds = (bounded.snapshot.holds as { items: Array<{ holdId: string }> }).items;
    expect(holds.length).toBeGreaterThan(0);
    expect(holds.map((h) => h.holdId)).toEqual(large.holds.items.slice(0, holds.length).map((h) => h.holdId));
    // the rest of the view is whole
    expect(bounded.snapshot.identity).toEqual(large.identity);
    expect((bounded.snapshot.recentOperations as { items: unknown[] }).items).toHaveLength(20);
    expect(large.holds.items).toHaveLength(2_000);
  });

  it('with a small bound, cuts several lists', () => {
    const bounded = boundSnapshot(view(50, 400), 4_000);
    expect(bytes(bounded.snapshot)).toBeLessThanOrEqual(4_000);
    expect(bounded.cut).toEqual({ 'holds.items': 50, 'recentOperations.items': 400 });
  });

  it('keeps the identity and the top-level fields when cutting lists is not enough', () => {
    const odd = { ...view(0, 0), notes: { text: 'y'.repeat(5_000) } };
    const bounded = boundSnapshot(odd, 1_000);
    expect(bounded.snapshot).toEqual({ userId: 'u-1', kind: 'CUSTOMER', identity: odd.identity, status: 'active' });
    expect(bounded.cut).toEqual({ '*': bytes(odd) });
    expect(bytes(bounded.snapshot)).toBeLessThanOrEqual(1_000);
  });
});
