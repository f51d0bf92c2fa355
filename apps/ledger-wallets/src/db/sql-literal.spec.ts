import { escapeLiteral } from 'pg';
import { lit, uuidArrayLit, uuidLit } from './sql-literal';

describe('SQL literals for batched statements', () => {
  it('quotes strings, doubling quotes and handling backslashes', () => {
    expect(lit("O'Brien")).toBe("'O''Brien'");
    expect(lit('a\\b')).toBe(" E'a\\\\b'");
    expect(lit(null)).toBe('NULL');
    expect(lit(true)).toBe('TRUE');
    expect(lit(42)).toBe('42');
  });

  it("gives escapeLiteral's answer for every string, with or without characters to escape", () => {
    const alphabet = ["'", '\\', '"', 'a', 'Z', '0', ' ', '{', '}', ':', ',', 'é', '€', '\n', ';', '-'];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let n = 0; n < 5_000; n++) {
      const length = next() % 24;
      const s = Array.from({ length }, () => alphabet[next() % alphabet.length]).join('');
      expect(lit(s)).toBe(escapeLiteral(s));
    }
    expect(lit(JSON.stringify({ note: "it's" }))).toBe(escapeLiteral(JSON.stringify({ note: "it's" })));
    expect(lit(new Date('2026-11-26T05:00:00.123Z'))).toBe("'2026-11-26T05:00:00.123Z'::timestamptz");
  });

  it('refuses unsafe numbers and malformed UUIDs', () => {
    expect(() => lit(2 ** 53)).toThrow();
    expect(() => lit(1.5)).toThrow();
    expect(() => uuidLit("x'; DROP TABLE ledger.ledgers; --")).toThrow();
    expect(() => uuidArrayLit(['00000000-0000-4000-8000-000000000001', 'nope'])).toThrow();
    expect(uuidLit('00000000-0000-4000-8000-00000000000A')).toBe("'00000000-0000-4000-8000-00000000000a'::uuid");
  });
});
