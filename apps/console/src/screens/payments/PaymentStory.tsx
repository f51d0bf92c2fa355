import { Badge, Group, SimpleGrid, Stack, Table, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { ActionDialog } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { Part } from '../../ui/Part';
import { SimpleTable } from '../../ui/SimpleTable';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';

type Story = components['schemas']['PaymentStoryView'];
type Party = components['schemas']['StaffPartyView'];

const party = (p: Party | null | undefined) => (p ? `${p.displayName ?? p.userId} (${p.role}${p.phone ? `, ${p.phone}` : ''})` : '—');

/** One payment from intent to webhook: the intent and its events, risk, fees, commission, journal, SMS, partner order and deliveries. */
export function PaymentStory({ params }: ScreenProps) {
  const { data: story, error } = useLoad(
    () => ok(api.GET('/api/backoffice/transactions/{reference}/story', { params: { path: { reference: params.reference } } })),
    [params.reference],
  );
  if (error) return <ErrorNotice error={error} />;
  if (!story) return <Text aria-live="polite">Loading…</Text>;
  const { ledger, payment, risk, fee, commission, sms, partnerOrder, webhooks } = story;
  const operation = ledger.operation;
  const currency = operation?.currency;

  return (
    <Stack data-testid="payment-story">
      <Group>
        <Text fw={700}>{story.key}</Text>
        {operation && <Badge color={operation.status === 'SUCCEEDED' ? 'green' : 'gray'}>{operation.status}</Badge>}
        {operation && <Text>{money(operation.amount, operation.currency)}</Text>}
        {operation?.reverses?.referenceId && (
          <Text size="sm">
            reverses <Link to={`/payments/${encodeURIComponent(operation.reverses.referenceId)}`}>{operation.reverses.referenceId}</Link>
          </Text>
        )}
        {operation?.reversedBy?.referenceId && (
          <Text size="sm" data-testid="reversed-by">
            reversed by{' '}
            <Link to={`/payments/${encodeURIComponent(operation.reversedBy.referenceId)}`}>{operation.reversedBy.referenceId}</Link>
          </Text>
        )}
      </Group>
      <ReverseAction story={story} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Part title="Payment intent" unavailable={payment.unavailable}>
          <Table withTableBorder variant="vertical">
            <Table.Tbody>
              {(
                [
                  ['Intent', payment.publicIntentId],
                  ['Type', payment.operationType],
                  ['Stage', payment.stage],
                  ['Payer', party(payment.payer)],
                  ['Payee', party(payment.payee)],
                  ['Agent', payment.agentCode],
                  ['Description', payment.description],
                  ['Failure', payment.failureReason],
                  ['PIN attempts', payment.pinAttempts],
                  ['Created', when(payment.createdAt)],
                  ['Correlation id', payment.correlationId],
                ] as const
              ).map(([label, value]) => (
                <Table.Tr key={label}>
                  <Table.Th scope="row">{label}</Table.Th>
                  <Table.Td>{value ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Part>
        <Part title="Fee and commission" unavailable={fee.unavailable}>
          <Text size="sm">
            Quoted:{' '}
            {fee.quote
              ? `${money(fee.quote.fee, currency)} fee, ${money(fee.quote.commission, currency)} commission (grid v${fee.quote.gridVersion}, ${when(fee.quote.quotedAt)})`
              : '—'}
          </Text>
          <Text size="sm">
            Charged:{' '}
            {fee.charged
              ? `${money(fee.charged.fee, currency)} fee, ${money(fee.charged.commission, currency)} commission (grid v${fee.charged.gridVersion}, ${fee.charged.rule})`
              : '—'}
          </Text>
          {!commission.unavailable && commission.agentCode && (
            <Text size="sm">
              Commission to agent {commission.agentCode}: {money(commission.amount, currency)}, credited{' '}
              {money(commission.credited, currency)} on {commission.accountId}
            </Text>
          )}
        </Part>
      </SimpleGrid>
      <Part title="Intent events" unavailable={ledger.unavailable}>
        <SimpleTable
          rows={ledger.events ?? []}
          caption="State changes of the intent"
          columns={[
            { label: 'When', cell: (e) => when(e.at) },
            { label: 'Event', cell: (e) => e.event },
            { label: 'From', cell: (e) => e.fromStatus ?? '' },
            { label: 'To', cell: (e) => e.toStatus },
            { label: 'By', cell: (e) => e.actorId ?? '' },
          ]}
        />
      </Part>
      <Part title="Risk decisions" unavailable={risk.unavailable}>
        <SimpleTable
          rows={risk.decisions ?? []}
          caption="Risk decisions with their reasons"
          columns={[
            { label: 'When', cell: (d) => when(d.createdAt) },
            { label: 'Stage', cell: (d) => d.stage },
            { label: 'Outcome', cell: (d) => d.outcome },
            { label: 'Reason', cell: (d) => d.reasonCode ?? '' },
            { label: 'Rules', cell: (d) => `v${d.rulesVersion}` },
            { label: 'Signals', cell: (d) => JSON.stringify(d.signals) },
          ]}
        />
      </Part>
      <Part title="Journal entries" unavailable={ledger.unavailable} testId="journal">
        <SimpleTable
          rows={ledger.entries ?? []}
          caption={`Double entries: debits ${money(ledger.debits, currency)}, credits ${money(ledger.credits, currency)}${ledger.balanced ? ', balanced' : ', NOT balanced'}`}
          testId="journal-entries"
          columns={[
            { label: 'When', cell: (e) => when(e.createdAt) },
            { label: 'Account', cell: (e) => `${e.accountId} (${e.accountType})` },
            { label: 'Holder', cell: (e) => e.holder ?? '' },
            { label: 'Direction', cell: (e) => e.direction },
            { label: 'Amount', cell: (e) => money(e.amount, e.currency) },
          ]}
        />
      </Part>
      <Part title="SMS sent" unavailable={sms.unavailable}>
        <SimpleTable
          rows={sms.messages ?? []}
          caption="Messages about this payment"
          columns={[
            { label: 'Queued', cell: (m) => when(m.queuedAt) },
            { label: 'To', cell: (m) => m.to },
            { label: 'Status', cell: (m) => `${m.status} (${m.attempts} attempt${m.attempts === 1 ? '' : 's'})` },
            { label: 'Text', cell: (m) => m.text },
            { label: 'Error', cell: (m) => m.lastError ?? '' },
          ]}
        />
      </Part>
      <Part title="Partner order" unavailable={partnerOrder.unavailable}>
        {partnerOrder.order ? (
          <Text size="sm">
            Order {partnerOrder.order.orderId} of {partnerOrder.order.integrationName} ({partnerOrder.order.status},{' '}
            {money(partnerOrder.order.amount, partnerOrder.order.currency)}){' '}
            <Link to={`/partners/${partnerOrder.order.integrationId}`}>Webhook log</Link>
          </Text>
        ) : (
          <Text size="sm">No partner order.</Text>
        )}
      </Part>
      <Part title="Webhook deliveries" unavailable={webhooks.unavailable}>
        {(webhooks.events ?? []).map((e) => (
          <Stack key={e.ref.id} gap={4}>
            <Text size="sm" fw={600}>
              {e.ref.type} · {e.delivery ? e.delivery.event.status : 'not dispatched yet'} ·{' '}
              <Link to={`/partners/${e.ref.integrationId}/events/${e.ref.id}`}>delivery log</Link>
            </Text>
            {e.delivery && <AttemptsTable attempts={e.delivery.attempts} />}
          </Stack>
        ))}
        {(webhooks.events ?? []).length === 0 && <Text size="sm">No webhook for this payment.</Text>}
      </Part>
    </Stack>
  );
}

export function AttemptsTable({ attempts }: { attempts: components['schemas']['WebhookAttemptDto'][] }) {
  return (
    <SimpleTable
      rows={attempts}
      caption="Every delivery attempt"
      testId="webhook-attempts"
      columns={[
        { label: '#', cell: (a) => a.attemptNumber },
        { label: 'When', cell: (a) => when(a.attemptedAt) },
        { label: 'URL', cell: (a) => a.url },
        { label: 'Status', cell: (a) => a.statusCode ?? '—' },
        { label: 'Latency', cell: (a) => (a.latencyMs === null ? '—' : `${a.latencyMs} ms`) },
        { label: 'Outcome', cell: (a) => a.outcome },
        { label: 'Response', cell: (a) => a.responseExcerpt ?? '' },
        { label: 'Error', cell: (a) => [a.errorCode, a.error].filter(Boolean).join(': ') },
      ]}
    />
  );
}

/** A reversal is a ledger correction of kind REVERSAL: submitted here, carried out once a checker approves it. */
function ReverseAction({ story }: { story: Story }) {
  const session = useSession();
  const [reason, setReason] = useState('');
  const operation = story.ledger.operation;
  if (!can(session, 'ledger.corrections') || !operation?.transactionId || operation.reversedBy || operation.status !== 'SUCCEEDED')
    return null;
  return (
    <Group>
      <ActionDialog
        label="Reverse…"
        title="Ask to reverse this payment"
        color="red"
        submit={() =>
          ok(
            api.POST('/api/backoffice/ledger/corrections', { body: { kind: 'REVERSAL', transactionId: operation.transactionId!, reason } }),
          )
        }
      >
        <Text size="sm">
          Every entry of {operation.referenceId} is reversed ({money(operation.amount, operation.currency)}) once another person approves.
        </Text>
        <Textarea label="Reason" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
      </ActionDialog>
    </Group>
  );
}
