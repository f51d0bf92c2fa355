import { Button, Group, Table, Text } from '@mantine/core';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { downloadCsv, toCsv } from './csv';
import { ErrorNotice } from './ErrorNotice';

export interface Column<T> {
  label: string;
  /** the cell's text, also what the CSV export writes */
  text: (row: T) => string;
  /** what the CSV export writes when it differs from the text (an amount as a plain integer) */
  csv?: (row: T) => string;
  /** what the table shows, when it is more than the text (a link, a badge) */
  render?: (row: T) => ReactNode;
  /** false for a column of controls, which the CSV export leaves out */
  exported?: false;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const ALL_PAGES_LIMIT = 50;

/**
 * A cursor-paginated list: the first page when `fetchPage` changes (a new filter), "Load more" for the
 * next, "Load all pages" (up to 50 pages), and a CSV export of the rows loaded so far.
 */
export function ListView<T>(props: {
  name: string;
  caption: string;
  columns: Column<T>[];
  fetchPage: (cursor: string | null) => Promise<Page<T>>;
  rowKey: (row: T) => string;
  empty?: string;
}) {
  const { fetchPage } = props;
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const generation = useRef(0);

  const load = useCallback(
    async (cursor: string | null, pages: number, reset: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(undefined);
      try {
        let collected: T[] = [];
        let at = cursor;
        for (let i = 0; i < pages; i++) {
          const page = await fetchPage(at);
          collected = collected.concat(page.items);
          at = page.nextCursor;
          if (!at) break;
        }
        if (mine !== generation.current) return;
        setRows((before) => (reset ? collected : before.concat(collected)));
        setNext(at);
      } catch (failure) {
        if (mine === generation.current) setError(failure);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [fetchPage],
  );

  useEffect(() => {
    setRows([]);
    setNext(null);
    void load(null, 1, true);
  }, [load]);

  return (
    <div>
      <ErrorNotice error={error} />
      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover data-testid={`${props.name}-table`}>
          <Table.Caption>{props.caption}</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              {props.columns.map((c) => (
                <Table.Th key={c.label} scope="col">
                  {c.label}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={props.rowKey(row)}>
                {props.columns.map((c) => (
                  <Table.Td key={c.label}>{c.render ? c.render(row) : c.text(row)}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {!loading && rows.length === 0 && !error && <Text c="dimmed">{props.empty ?? 'Nothing to show.'}</Text>}
      <Group mt="sm" aria-label={`${props.caption}: pages and export`} role="group">
        <Text size="sm" aria-live="polite">
          {loading ? 'Loading…' : `${rows.length} row${rows.length === 1 ? '' : 's'} loaded${next ? ', more available' : ''}`}
        </Text>
        <Button variant="default" size="xs" disabled={!next || loading} onClick={() => void load(next, 1, false)}>
          Load more
        </Button>
        <Button variant="default" size="xs" disabled={!next || loading} onClick={() => void load(next, ALL_PAGES_LIMIT, false)}>
          Load all pages
        </Button>
        <Button
          variant="default"
          size="xs"
          disabled={rows.length === 0}
          onClick={() =>
            downloadCsv(
              `${props.name}.csv`,
              toCsv(
                props.columns.filter((c) => c.exported !== false).map((c) => ({ label: c.label, text: c.csv ?? c.text })) as never,
                rows,
              ),
            )
          }
        >
          Export CSV
        </Button>
      </Group>
    </div>
  );
}
