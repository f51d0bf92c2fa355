import { Button, Group, NumberInput, Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components, paths } from '../../api/schema';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { money, when } from '../../ui/format';

type Operation = components['schemas']['BackofficeTransactionView'];
type Filters = Omit<NonNullable<paths['/api/backoffice/transactions']['get']['parameters']['query']>, 'cursor' | 'limit'>;

const TYPES: Operation['type'][] = ['TRANSFER', 'CASH_IN', 'CASH_OUT', 'ADJUSTMENT'];
const STATUSES: Operation['status'][] = [
  'CREATED',
  'OTP_SENT',
  'OTP_VERIFIED',
  'PIN_VERIFIED',
  'SUCCEEDED',
  'FAILED',
  'EXPIRED',
  'CANCELED',
];

const party = (p: Operation['payer']) => (p ? `${p.displayName ?? ''} ${p.phone ?? ''}`.trim() || p.userId : '');

const COLUMNS: Column<Operation>[] = [
  { label: 'When', text: (o) => when(o.at) },
  {
    label: 'Reference',
    text: (o) => o.referenceId ?? '',
    render: (o) => (o.referenceId ? <Link to={`/payments/${encodeURIComponent(o.referenceId)}`}>{o.referenceId}</Link> : ''),
  },
  { label: 'Type', text: (o) => o.operationType ?? o.type },
  {
    label: 'Status',
    text: (o) => o.status,
    render: (o) => (
      <Text size="sm" fw={600} c={o.status === 'SUCCEEDED' ? 'green.8' : o.status === 'FAILED' ? 'red.8' : 'gray.7'}>
        {o.status}
      </Text>
    ),
  },
  { label: 'Amount', text: (o) => money(o.amount, o.currency), csv: (o) => String(o.amount) },
  { label: 'Currency', text: (o) => o.currency },
  { label: 'Fee', text: (o) => money(o.fee, o.currency), csv: (o) => String(o.fee ?? '') },
  { label: 'Payer', text: (o) => party(o.payer) },
  { label: 'Payee', text: (o) => party(o.payee) },
  { label: 'Reversed by', text: (o) => o.reversedBy?.referenceId ?? '' },
];

const blank = (text: string) => text.trim() || undefined;

/** Operations by reference, phone, account, type, status, amount range and dates; each opens its story. */
export function PaymentsSearch() {
  const [form, setForm] = useState({
    reference: '',
    phone: '',
    accountId: '',
    type: '',
    status: '',
    minAmount: '' as number | string,
    maxAmount: '' as number | string,
    from: '',
    to: '',
  });
  const [filters, setFilters] = useState<Filters>({});
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setFilters({
      reference: blank(form.reference),
      phone: blank(form.phone),
      accountId: blank(form.accountId),
      type: (form.type || undefined) as Operation['type'] | undefined,
      status: (form.status || undefined) as Operation['status'] | undefined,
      minAmount: form.minAmount === '' ? undefined : Number(form.minAmount),
      maxAmount: form.maxAmount === '' ? undefined : Number(form.maxAmount),
      from: form.from ? new Date(form.from).toISOString() : undefined,
      to: form.to ? new Date(form.to).toISOString() : undefined,
    });
  }

  const fetchPage = useCallback(
    (cursor: string | null) =>
      ok(api.GET('/api/backoffice/transactions', { params: { query: { ...filters, cursor: cursor ?? undefined, limit: 50 } } })),
    [filters],
  );

  return (
    <div>
      <form onSubmit={submit} role="search" aria-label="Search operations">
        <SimpleGrid cols={{ base: 2, md: 5 }} mb="md">
          <TextInput label="Reference" value={form.reference} onChange={(e) => set({ reference: e.currentTarget.value })} />
          <TextInput label="Phone" value={form.phone} onChange={(e) => set({ phone: e.currentTarget.value })} />
          <TextInput label="Account id" value={form.accountId} onChange={(e) => set({ accountId: e.currentTarget.value })} />
          <Select
            label="Type"
            value={form.type}
            onChange={(v) => set({ type: v ?? '' })}
            data={[{ value: '', label: 'Any type' }, ...TYPES]}
            allowDeselect={false}
          />
          <Select
            label="Status"
            value={form.status}
            onChange={(v) => set({ status: v ?? '' })}
            data={[{ value: '', label: 'Any status' }, ...STATUSES]}
            allowDeselect={false}
          />
          <NumberInput
            label="Minimum amount"
            allowDecimal={false}
            allowNegative={false}
            value={form.minAmount}
            onChange={(v) => set({ minAmount: v })}
          />
          <NumberInput
            label="Maximum amount"
            allowDecimal={false}
            allowNegative={false}
            value={form.maxAmount}
            onChange={(v) => set({ maxAmount: v })}
          />
          <TextInput label="From" type="datetime-local" value={form.from} onChange={(e) => set({ from: e.currentTarget.value })} />
          <TextInput label="To" type="datetime-local" value={form.to} onChange={(e) => set({ to: e.currentTarget.value })} />
          <Group align="end">
            <Button type="submit">Search</Button>
          </Group>
        </SimpleGrid>
      </form>
      <ListView
        name="operations"
        caption="Operations, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(o) => o.transactionId ?? o.intentId ?? o.referenceId ?? o.at}
        empty="No operation matches."
      />
    </div>
  );
}
