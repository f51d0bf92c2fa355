import { Table } from '@mantine/core';

/**
 * An array of flat records as a table (the postings of a correction, the changes of a configuration),
 * each column a key found in the rows.
 */
export function ValueTable({ rows, caption }: { rows: Array<Record<string, unknown>>; caption: string }) {
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const text = (value: unknown) =>
    value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return (
    <Table striped withTableBorder>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          {keys.map((key) => (
            <Table.Th key={key} scope="col">
              {key}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row, i) => (
          <Table.Tr key={i}>
            {keys.map((key) => (
              <Table.Td key={key}>{text(row[key])}</Table.Td>
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
