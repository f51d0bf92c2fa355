import { Alert, Badge, Button, Group, SegmentedControl, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components, paths } from '../../api/schema';
import { navigate } from '../../router';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { Part } from '../../ui/Part';
import { SimpleTable } from '../../ui/SimpleTable';
import { saveCsv, textOf } from '../../ui/documents';
import { money, westAfricaDay, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';

type Line = components['schemas']['SettlementStatementLineView'];
type Query = NonNullable<paths['/api/backoffice/merchants/{merchantId}/statements']['get']['parameters']['query']>;
type Currency = NonNullable<Query['currency']>;

const CATEGORY_LABELS: Record<Line['category'], string> = {
  PAYMENT: 'Payments received',
  DEPOSIT: 'Cash deposits',
  FEE: 'Fees',
  PAYOUT: 'Payouts',
  REVERSAL: 'Reversals',
  CORRECTION: 'Corrections',
  COMMISSION: 'Commissions',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A merchant's settlement statement as the merchant gets it (docs/statements.md): opening balance,
 * every ledger entry of a day or a period with the partner order a payment paid, totals per kind of
 * line, closing balance; and its CSV. The address keeps the query, so a person's 360 view links here.
 */
export function MerchantStatement({ query }: ScreenProps) {
  const asked = {
    merchantId: query.get('merchantId') ?? '',
    from: query.get('from') ?? query.get('date') ?? '',
    to: query.get('to') ?? query.get('date') ?? '',
    currency: (query.get('currency') ?? 'XAF') as Currency,
    /** the business name, when the merchant's 360 view linked here (the statement itself names no one) */
    name: query.get('name') ?? '',
  };
  const [form, setForm] = useState({
    merchantId: asked.merchantId,
    period: asked.from && asked.from !== asked.to ? 'period' : 'day',
    from: asked.from || westAfricaDay(-1),
    to: asked.to || westAfricaDay(-1),
    currency: asked.currency,
  });
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const search = new URLSearchParams({ merchantId: form.merchantId.trim(), currency: form.currency });
    // the name the merchant's page gave stays only for the same merchant
    if (asked.name && form.merchantId.trim() === asked.merchantId) search.set('name', asked.name);
    if (form.period === 'day') search.set('date', form.from);
    else {
      search.set('from', form.from);
      search.set('to', form.to);
    }
    navigate(`/statements?${search}`);
  }

  return (
    <Stack>
      <form onSubmit={submit} aria-label="Choose a merchant and a period">
        <SimpleGrid cols={{ base: 2, md: 5 }}>
          <TextInput
            label="Merchant id"
            description="From the merchant's page (People)"
            required
            value={form.merchantId}
            onChange={(e) => set({ merchantId: e.currentTarget.value })}
          />
          <SegmentedControl
            aria-label="A day or a period"
            mt={24}
            value={form.period}
            onChange={(period) => set({ period })}
            data={[
              { value: 'day', label: 'One day' },
              { value: 'period', label: 'A period' },
            ]}
          />
          <TextInput
            label={form.period === 'day' ? 'Day' : 'From (day)'}
            type="date"
            required
            value={form.from}
            onChange={(e) => set({ from: e.currentTarget.value })}
          />
          {form.period === 'period' ? (
            <TextInput
              label="To (day, inclusive)"
              description="At most 31 days"
              type="date"
              required
              value={form.to}
              onChange={(e) => set({ to: e.currentTarget.value })}
            />
          ) : (
            <Select
              label="Currency"
              allowDeselect={false}
              value={form.currency}
              onChange={(v) => v && set({ currency: v as Currency })}
              data={['XAF', 'XOF']}
            />
          )}
          <Group align="end">
            <Button type="submit">Show the statement</Button>
          </Group>
        </SimpleGrid>
      </form>
      <Text size="xs" c="dimmed">
        Days run midnight to midnight West Africa Time (UTC+1).
      </Text>
      {UUID.test(asked.merchantId) && asked.from ? (
        <StatementView
          merchantId={asked.merchantId}
          name={asked.name}
          query={{ ...(asked.from === asked.to ? { date: asked.from } : { from: asked.from, to: asked.to }), currency: asked.currency }}
        />
      ) : (
        asked.merchantId && <Alert color="orange">A merchant id is a UUID, as the merchant&apos;s page shows it.</Alert>
      )}
    </Stack>
  );
}

function StatementView({ merchantId, name, query }: { merchantId: string; name: string; query: Query }) {
  const path = { merchantId };
  const { data: statement, error } = useLoad(
    () => ok(api.GET('/api/backoffice/merchants/{merchantId}/statements', { params: { path, query } })),
    [merchantId, JSON.stringify(query)],
  );
  const [csvError, setCsvError] = useState<unknown>();
  const [saving, setSaving] = useState(false);

  async function downloadCsv() {
    setSaving(true);
    setCsvError(undefined);
    try {
      await saveCsv(`statement-${merchantId}.csv`, () =>
        textOf(
          api.GET('/api/backoffice/merchants/{merchantId}/statements', {
            params: { path, query: { ...query, format: 'csv' } },
            parseAs: 'text',
          }),
        ),
      );
    } catch (failure) {
      setCsvError(failure);
    } finally {
      setSaving(false);
    }
  }

  if (error) return <ErrorNotice error={error} />;
  if (!statement) return <Text aria-live="polite">Loading…</Text>;
  const c = statement.currency;
  const { period } = statement;
  return (
    <Stack data-testid="settlement-statement">
      <Group>
        <Text fw={700} data-testid="statement-title">
          {name ? `${name}: ` : ''}
          {period.fromDate === period.toDate ? `Statement of ${period.fromDate}` : `Statement from ${period.fromDate} to ${period.toDate}`}
        </Text>
        <Badge variant="light">{c}</Badge>
        <Text size="sm" c="dimmed">
          account {statement.accountId}
        </Text>
        <Button variant="default" size="xs" onClick={() => void downloadCsv()} loading={saving}>
          Download CSV
        </Button>
      </Group>
      <ErrorNotice error={csvError} title="The CSV could not be downloaded" />
      <Table withTableBorder variant="vertical" maw={560} data-testid="statement-summary">
        <Table.Tbody>
          {(
            [
              ['Opening balance', money(statement.openingBalance, c), 'statement-opening'],
              ['Money in', money(statement.totalCredits, c), 'statement-credits'],
              ['Money out', money(statement.totalDebits, c), 'statement-debits'],
              ['Closing balance', money(statement.closingBalance, c), 'statement-closing'],
            ] as const
          ).map(([label, value, testId]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row">{label}</Table.Th>
              <Table.Td data-testid={testId}>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Part title="Totals by kind">
        <SimpleTable
          rows={statement.totals.filter((t) => t.count > 0)}
          caption={`Lines per kind, ${period.start} to ${period.end} (UTC)`}
          columns={[
            { label: 'Kind', cell: (t) => CATEGORY_LABELS[t.category] },
            { label: 'Lines', cell: (t) => t.count },
            { label: 'In', cell: (t) => money(t.credits, c) },
            { label: 'Out', cell: (t) => money(t.debits, c) },
          ]}
        />
      </Part>
      <Part title="Lines">
        <SimpleTable
          rows={statement.lines}
          caption="Every ledger entry on the merchant's account, oldest first, with the balance after it"
          testId="statement-lines"
          columns={[
            { label: 'Booked', cell: (l) => when(l.bookedAt) },
            {
              label: 'Reference',
              cell: (l) => <Link to={`/payments/${encodeURIComponent(l.referenceId)}`}>{l.referenceId}</Link>,
            },
            { label: 'Kind', cell: (l) => CATEGORY_LABELS[l.category] },
            { label: 'In', cell: (l) => (l.direction === 'CREDIT' ? money(l.amount, c) : '') },
            { label: 'Out', cell: (l) => (l.direction === 'DEBIT' ? money(l.amount, c) : '') },
            { label: 'Balance after', cell: (l) => money(l.balanceAfter, c) },
            {
              label: 'Partner order',
              cell: (l) =>
                l.order
                  ? `${l.order.externalReference ?? ''} (${l.order.orderId.slice(0, 8)}…)`
                  : l.reversalOf
                    ? `undoes ${l.reversalOf}`
                    : '',
            },
          ]}
        />
      </Part>
    </Stack>
  );
}
