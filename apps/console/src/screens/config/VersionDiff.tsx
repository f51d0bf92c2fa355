import { Button, Group, NumberInput, Stack, Table, Text, Title } from '@mantine/core';
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { toCsv, downloadCsv } from '../../ui/csv';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { when } from '../../ui/format';
import { type Difference, type Section, valueText } from './labels';

type Diff = components['schemas']['ConfigDiffView'];

const COLUMNS: Array<{ label: string; text: (d: Difference) => string }> = [
  { label: 'Where', text: (d) => d.path },
  { label: 'Before', text: (d) => valueText(d.before) },
  { label: 'After', text: (d) => valueText(d.after) },
];

/** What changed between two versions of a section (from → to): who made each, when, why, and every changed value. */
export function VersionDiff({
  section,
  latest,
  request,
}: {
  section: Section;
  latest: number | undefined;
  /** a comparison asked from the versions list ("Changes" of a version): shown at once */
  request?: { from: number; to: number };
}) {
  const [from, setFrom] = useState<number | string>('');
  const [to, setTo] = useState<number | string>('');
  const [diff, setDiff] = useState<Diff>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    setDiff(undefined);
    setError(undefined);
    if (latest === undefined) return;
    setFrom(Math.max(1, latest - 1));
    setTo(latest);
  }, [section, latest]);

  const show = useCallback(
    async (a: number, b: number) => {
      setBusy(true);
      setError(undefined);
      try {
        setDiff(await ok(api.GET('/api/config/{section}/versions/diff', { params: { path: { section }, query: { from: a, to: b } } })));
      } catch (failure) {
        setDiff(undefined);
        setError(failure);
      } finally {
        setBusy(false);
      }
    },
    [section],
  );

  useEffect(() => {
    if (!request) return;
    setFrom(request.from);
    setTo(request.to);
    void show(request.from, request.to);
  }, [request, show]);

  async function compare(event: FormEvent) {
    event.preventDefault();
    await show(Number(from), Number(to));
  }

  return (
    <Stack gap="xs" component="section" aria-labelledby={`diff-${section}`}>
      <Title order={2} size="h4" id={`diff-${section}`}>
        Compare two versions
      </Title>
      <form onSubmit={compare} aria-label="Compare two versions">
        <Group align="end">
          <NumberInput label="From version" min={1} value={from} onChange={setFrom} allowDecimal={false} w={140} />
          <NumberInput label="To version" min={1} value={to} onChange={setTo} allowDecimal={false} w={140} />
          <Button type="submit" loading={busy}>
            Show changes
          </Button>
        </Group>
      </form>
      <ErrorNotice error={error} />
      {diff && (
        <Stack gap="xs" data-testid="config-diff">
          <Text size="sm">
            <strong>Version {diff.from.version}</strong> by {diff.from.createdBy}, {when(diff.from.createdAt)}: “{diff.from.reason}”
            <br />
            <strong>Version {diff.to.version}</strong> by {diff.to.createdBy}, {when(diff.to.createdAt)}: “{diff.to.reason}”
          </Text>
          {diff.changes.length === 0 ? (
            <Text c="dimmed">The two versions are identical.</Text>
          ) : (
            <Table.ScrollContainer minWidth={600}>
              <Table striped withTableBorder data-testid="config-diff-table">
                <Table.Caption>
                  {diff.changes.length} value{diff.changes.length === 1 ? '' : 's'} changed from version {diff.from.version} to version{' '}
                  {diff.to.version}
                </Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    {COLUMNS.map((c) => (
                      <Table.Th key={c.label} scope="col">
                        {c.label}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {diff.changes.map((change) => (
                    <Table.Tr key={change.path}>
                      <Table.Td ff="monospace">{change.path}</Table.Td>
                      <Table.Td style={{ wordBreak: 'break-all' }}>{valueText(change.before)}</Table.Td>
                      <Table.Td style={{ wordBreak: 'break-all' }}>{valueText(change.after)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Group>
            <Button
              variant="default"
              size="xs"
              disabled={diff.changes.length === 0}
              onClick={() => downloadCsv(`${section}-v${diff.from.version}-v${diff.to.version}.csv`, toCsv(COLUMNS, diff.changes))}
            >
              Export CSV
            </Button>
          </Group>
        </Stack>
      )}
    </Stack>
  );
}
