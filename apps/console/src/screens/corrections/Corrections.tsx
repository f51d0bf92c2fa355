import { Badge, Button, Group, NumberInput, SegmentedControl, Select, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { downloadCsv, toCsv } from '../../ui/csv';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';

type Correction = components['schemas']['LedgerCorrectionView'];
type Body = components['schemas']['SubmitLedgerCorrectionBody'];
type Currency = NonNullable<Body['currency']>;
type Status = Correction['status'];

const STATUSES: Record<Status, string> = {
  PENDING_APPROVAL: 'Waiting for a checker',
  EXECUTED: 'Carried out',
  REJECTED: 'Rejected',
  EXPIRED: 'Expired',
};

const COLUMNS: Array<{ label: string; text: (c: Correction) => string }> = [
  { label: 'Kind', text: (c) => c.kind },
  {
    label: 'Account / transaction',
    text: (c) => (c.kind === 'REVERSAL' ? (c.reversalOf?.referenceId ?? '') : `${c.direction} ${c.accountId}`),
  },
  { label: 'Amount', text: (c) => money(c.amount, c.currency) },
  { label: 'Status', text: (c) => STATUSES[c.status] },
  { label: 'Reason', text: (c) => c.reason },
  { label: 'Maker', text: (c) => c.maker.id },
  { label: 'Submitted', text: (c) => when(c.maker.submittedAt) },
];

/**
 * Ledger corrections (an amount on one account against the adjustment account) and reversals (every
 * entry of a transaction undone), submitted to the maker-checker engine, and the ledger's list of them.
 */
export function Corrections() {
  const session = useSession();
  const [status, setStatus] = useState<Status | ''>('');
  const { data, error, reload } = useLoad(
    () => ok(api.GET('/api/backoffice/ledger/corrections', { params: { query: { status: status || undefined, limit: 100 } } })),
    [status],
  );
  const rows = data ?? [];
  return (
    <Stack>
      {can(session, 'ledger.corrections') && (
        <Group>
          <CorrectionForm done={() => void reload()} />
          <FloatFundingForm />
        </Group>
      )}
      <Title order={2} size="h4">
        Corrections and reversals in the ledger
      </Title>
      <Group align="end">
        <Select
          label="Status"
          value={status}
          onChange={(v) => setStatus((v ?? '') as Status | '')}
          data={[{ value: '', label: 'Any status' }, ...Object.entries(STATUSES).map(([value, label]) => ({ value, label }))]}
          allowDeselect={false}
        />
        <Text size="sm">{rows.length} shown (the latest 100)</Text>
        <CorrectionsCsv rows={rows} />
      </Group>
      <ErrorNotice error={error} />
      <Table striped data-testid="corrections-table">
        <Table.Caption>Ledger corrections, newest first</Table.Caption>
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
          {rows.map((row) => (
            <Table.Tr key={row.id}>
              {COLUMNS.map((c) => (
                <Table.Td key={c.label}>{c.label === 'Status' ? <Badge variant="light">{c.text(row)}</Badge> : c.text(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function CorrectionsCsv({ rows }: { rows: Correction[] }) {
  return (
    <Button variant="default" size="xs" disabled={rows.length === 0} onClick={() => downloadCsv('corrections.csv', toCsv(COLUMNS, rows))}>
      Export CSV
    </Button>
  );
}

function CorrectionForm({ done }: { done: () => void }) {
  const [kind, setKind] = useState<'ACCOUNT' | 'REVERSAL'>('ACCOUNT');
  const [accountId, setAccountId] = useState('');
  const [direction, setDirection] = useState<'CREDIT' | 'DEBIT'>('CREDIT');
  const [amount, setAmount] = useState<number | string>('');
  const [currency, setCurrency] = useState<Currency>('XAF');
  const [reference, setReference] = useState('');
  const [reason, setReason] = useState('');

  function body(): Body {
    if (kind === 'REVERSAL') {
      const ref = reference.trim();
      return /^[0-9a-f-]{36}$/i.test(ref) ? { kind, transactionId: ref, reason } : { kind, referenceId: ref, reason };
    }
    return { kind, accountId: accountId.trim(), direction, amount: Number(amount), currency, reason };
  }

  return (
    <ActionDialog
      label="New correction or reversal…"
      title="Submit a ledger correction"
      done={done}
      submit={() => ok(api.POST('/api/backoffice/ledger/corrections', { body: body() }))}
    >
      <SegmentedControl
        aria-label="Kind of correction"
        value={kind}
        onChange={(v) => setKind(v as 'ACCOUNT' | 'REVERSAL')}
        data={[
          { value: 'ACCOUNT', label: 'Correct an account' },
          { value: 'REVERSAL', label: 'Reverse a transaction' },
        ]}
      />
      {kind === 'ACCOUNT' ? (
        <>
          <TextInput label="Account id" required value={accountId} onChange={(e) => setAccountId(e.currentTarget.value)} />
          <Select
            label="Direction"
            allowDeselect={false}
            value={direction}
            onChange={(v) => v && setDirection(v as 'CREDIT' | 'DEBIT')}
            data={[
              { value: 'CREDIT', label: 'Credit (adds to the account)' },
              { value: 'DEBIT', label: 'Debit (takes from the account)' },
            ]}
          />
          <NumberInput
            label="Amount (smallest unit)"
            required
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator=" "
            value={amount}
            onChange={setAmount}
          />
          <Select
            label="Currency"
            allowDeselect={false}
            value={currency}
            onChange={(v) => v && setCurrency(v as Currency)}
            data={['XAF', 'XOF']}
          />
        </>
      ) : (
        <TextInput label="Transaction reference or id" required value={reference} onChange={(e) => setReference(e.currentTarget.value)} />
      )}
      <Textarea
        label="Reason"
        required
        description="3 to 500 characters, kept with the request"
        value={reason}
        onChange={(e) => setReason(e.currentTarget.value)}
      />
    </ActionDialog>
  );
}

/** Float funding by agent id (also offered on an agent's 360 page). */
function FloatFundingForm() {
  const [agentId, setAgentId] = useState('');
  const [amount, setAmount] = useState<number | string>('');
  const [currency, setCurrency] = useState<Currency>('XAF');
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      label="Fund an agent's float…"
      title="Fund an agent's float"
      submit={() =>
        ok(
          api.POST('/api/backoffice/ledger/agents/{agentId}/float-fundings', {
            params: { path: { agentId: agentId.trim() } },
            body: { amount: Number(amount), currency, reason },
          }),
        )
      }
    >
      <TextInput label="Agent id" required value={agentId} onChange={(e) => setAgentId(e.currentTarget.value)} />
      <NumberInput
        label="Amount (smallest unit)"
        required
        allowDecimal={false}
        allowNegative={false}
        thousandSeparator=" "
        value={amount}
        onChange={setAmount}
      />
      <Select
        label="Currency"
        allowDeselect={false}
        value={currency}
        onChange={(v) => v && setCurrency(v as Currency)}
        data={['XAF', 'XOF']}
      />
      <Textarea label="Reason" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
    </ActionDialog>
  );
}
