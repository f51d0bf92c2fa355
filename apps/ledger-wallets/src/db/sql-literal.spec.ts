import { lit, uuidArrayLit, uuidLit } from './sql-literal';

describe('SQL literals for batched statements', () => {
  it('quotes strings, doubling quotes and handling backslashes', () => {
    expect(lit("O'Brien")).toBe("'O''Brien'");
    expect(lit('a\\b')).toBe(" E'a\\\\b'");
    expect(lit(null)).toBe('NULL');
    expect(lit(true)).toBe('TRUE');
    expect(lit(42)).toBe('42');
  });

  it('refuses unsafe numbers and malformed UUIDs', () => {
    expect(() => lit(2 ** 53)).toThrow();
    expect(() => lit(1.5)).toThrow();
    expect(() => uuidLit("x'; DROP TABLE ledger.ledgers; --")).toThrow();
    expect(() => uuidArrayLit(['00000000-0000-4000-8000-000000000001', 'nope'])).toThrow();
    expect(uuidLit('00000000-0000-4000-8000-00000000000A')).toBe("'00000000-0000-4000-8000-00000000000a'::uuid");
  });
});
