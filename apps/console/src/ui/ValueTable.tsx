import { Table } from '@mantine/core';
import { money } from './format';

const MONEY_KEY = /amount|balance|available|held/i;

/** `accountId` → "Account id": a JSON key as a column heading. */
function words(key: string): string {
  const spaced = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * An array of flat records as a table (the postings of a correction, the changes of a configuration),
 * each column a key found in the rows.
 */
export function ValueTable({ rows, caption }: { rows: Array<Record<string, unknown>>; caption: string }) {
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const text = (key: string, row: Record<string, unknown>) => {
    const value = row[key];
    if (value === null || value === undefined) return '';
    // money columns read as money (integers in the smallest unit), with the row's currency when it has one
    if (MONEY_KEY.test(key) && Number.isInteger(value))
      return money(value as number, typeof row.currency === 'string' ? row.currency : undefined);
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  };
  return (
    <Table striped withTableBorder>
      <Table.Caption>{words(caption)}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          {keys.map((key) => (
            <Table.Th key={key} scope="col">
              {words(key)}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row, i) => (
          <Table.Tr key={i}>
            {keys.map((key) => (
              <Table.Td key={key}>{text(key, row)}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The arrays of records inside a value (one level deep), each with its key: what a preview lists. */
export function recordArrays(value: unknown): Array<[string, Array<Record<string, unknown>>]> {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, Array<Record<string, unknown>>] =>
      Array.isArray(entry[1]) && entry[1].length > 0 && entry[1].every((item) => item && typeof item === 'object' && !Array.isArray(item)),
  );
}
