import { Badge, Group, NumberInput, Select, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { FactsTable } from '../../ui/FactsTable';
import { ActionDialog } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { Part } from '../../ui/Part';
import { SimpleTable } from '../../ui/SimpleTable';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';

type Person = components['schemas']['Person360View'];
type Balance = components['schemas']['PersonBalanceView'];
type FreezeReason = components['schemas']['FreezePersonDto']['reasonCode'];
type Currency = components['schemas']['FloatFundingBody']['currency'];

const FREEZE_REASONS: Record<FreezeReason, string> = {
  FRAUD_SUSPECTED: 'Fraud suspected',
  KYC_REVIEW: 'KYC review',
  CUSTOMER_REQUEST: 'At the customer’s request',
  COURT_ORDER: 'Court order',
  LOST_DEVICE: 'Lost device',
  OTHER: 'Other',
};
const CURRENCIES: Currency[] = ['XAF', 'XOF'];

const BALANCE_COLUMNS = [
  { label: 'Account', cell: (b: Balance) => b.accountId },
  { label: 'Type', cell: (b: Balance) => b.accountType },
  { label: 'Available', cell: (b: Balance) => money(b.available, b.currency) },
  { label: 'Held', cell: (b: Balance) => money(b.held, b.currency) },
  { label: 'Total', cell: (b: Balance) => money(b.total, b.currency) },
];

/** Everything about one person on one page, and the actions their role allows on it. */
export function Person360({ params }: ScreenProps) {
  const session = useSession();
  const {
    data: person,
    error,
    reload,
  } = useLoad(() => ok(api.GET('/api/backoffice/people/{userId}', { params: { path: { userId: params.userId } } })), [params.userId]);
  if (error) return <ErrorNotice error={error} />;
  if (!person) return <Text aria-live="polite">Loading…</Text>;
  const { identity } = person;
  return (
    <Stack data-testid="person-360">
      <Group>
        <Text fw={700} size="lg" data-testid="person-name">
          {person.merchant?.businessName ?? [identity.firstName, identity.lastName].filter(Boolean).join(' ')}
        </Text>
        <Badge>{person.role}</Badge>
        {person.status ? (
          <Badge color={person.status === 'active' ? 'green' : 'red'} data-testid="person-status">
            {person.status}
          </Badge>
        ) : (
          person.security.value && (
            // staff have no customer status: their sign-in account's is what disable / enable changes
            <Badge color={person.security.value.status === 'ACTIVE' ? 'green' : 'red'} data-testid="person-status">
              {person.security.value.status === 'ACTIVE' ? 'active' : 'disabled'}
            </Badge>
          )
        )}
        {person.kycTier && <Badge variant="outline">KYC {person.kycTier}</Badge>}
      </Group>
      <PersonActions person={person} reload={reload} />
      {person.freeze && (
        <Text c="red" data-testid="person-freeze">
          Frozen {when(person.freeze.frozenAt)} by {person.freeze.frozenBy}:{' '}
          {person.freeze.reasonCode ? FREEZE_REASONS[person.freeze.reasonCode] : ''}
          {person.freeze.note ? ` (${person.freeze.note})` : ''}
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Part title="Identity">
          <FactsTable
            facts={[
              ['Phone', identity.phone],
              ['Email', identity.email ?? '—'],
              ['Country', identity.countryCode ?? '—'],
              ['User id', person.userId],
              ['Customer id', identity.customerId ?? '—'],
              ['Since', when(identity.createdAt)],
            ]}
          />
        </Part>
        {person.wallet && (
          <Part title="Wallet" unavailable={person.wallet.unavailable}>
            <SimpleTable
              rows={person.wallet.balances ?? []}
              columns={BALANCE_COLUMNS}
              caption={`Balances of wallet ${person.wallet.walletId ?? ''}`}
              testId="wallet-balances"
            />
          </Part>
        )}
      </SimpleGrid>
      {person.agent && (
        <Part title="Agent float and commission" unavailable={person.agent.unavailable}>
          <Text size="sm">
            Agent code {person.agent.agentCode}
            {person.agent.masterAgent ? `, affiliated to ${person.agent.masterAgent.name} (${person.agent.masterAgent.agentCode})` : ''}
          </Text>
          <SimpleTable rows={person.agent.float ?? []} columns={BALANCE_COLUMNS} caption="Float accounts" testId="agent-float" />
          <SimpleTable rows={person.agent.commission ?? []} columns={BALANCE_COLUMNS} caption="Commission accounts" />
        </Part>
      )}
      {person.holds && (
        <Part title="Holds" unavailable={person.holds.unavailable}>
          <SimpleTable
            rows={person.holds.items ?? []}
            caption="Holds on the person's accounts"
            columns={[
              { label: 'Placed', cell: (h) => when(h.createdAt) },
              { label: 'Account', cell: (h) => h.accountId },
              { label: 'Amount', cell: (h) => money(h.amount, h.currency) },
              { label: 'Status', cell: (h) => h.status },
              { label: 'Reason', cell: (h) => h.reason ?? '' },
            ]}
          />
        </Part>
      )}
      {person.limits && (
        <Part title="Limit usage" unavailable={person.limits.unavailable}>
          <SimpleTable
            rows={person.limits.windows ?? []}
            caption={`Limits in force (version ${person.limits.version ?? '?'}, ${person.limits.timezone ?? ''})`}
            columns={[
              { label: 'Window', cell: (w) => w.window },
              { label: 'As', cell: (w) => w.subject },
              { label: 'Used', cell: (w) => money(w.used, w.currency) },
              { label: 'Limit', cell: (w) => money(w.limit, w.currency) },
              { label: 'Remaining', cell: (w) => money(w.remaining, w.currency) },
            ]}
          />
        </Part>
      )}
      {person.recentOperations && (
        <Part title="Recent operations" unavailable={person.recentOperations.unavailable}>
          <SimpleTable
            rows={person.recentOperations.items ?? []}
            caption="The latest operations, newest first"
            testId="recent-operations"
            columns={[
              { label: 'When', cell: (t) => when(t.completedAt) },
              { label: 'Reference', cell: (t) => <Link to={`/payments/${encodeURIComponent(t.referenceId)}`}>{t.referenceId}</Link> },
              { label: 'Type', cell: (t) => t.operationType },
              { label: 'Direction', cell: (t) => t.direction },
              { label: 'Amount', cell: (t) => money(t.amount, t.currency) },
              { label: 'Fee', cell: (t) => money(t.fee, t.currency) },
              { label: 'Balance change', cell: (t) => money(t.balanceChange, t.currency) },
            ]}
          />
        </Part>
      )}
      <Part title="Sign-in security" unavailable={person.security.unavailable}>
        {person.security.value && (
          <>
            <Text size="sm">
              Account {person.security.value.status}; second factor{' '}
              {person.security.value.secondFactor.required
                ? person.security.value.secondFactor.enrolled
                  ? `enrolled ${when(person.security.value.secondFactor.enrolledAt)}`
                  : 'required, not yet enrolled'
                : 'not required'}
            </Text>
            <SimpleTable
              rows={person.security.value.sessions}
              caption="Live sessions"
              columns={[
                { label: 'Started', cell: (s) => when(s.createdAt) },
                { label: 'Last used', cell: (s) => when(s.lastUsedAt) },
                { label: 'Expires', cell: (s) => when(s.expiresAt) },
                { label: 'Device', cell: (s) => s.userAgent ?? '' },
              ]}
            />
            <SimpleTable
              rows={person.security.value.lockouts}
              caption="Lockout counters"
              columns={[
                { label: 'Kind', cell: (l) => l.kind },
                { label: 'Failures', cell: (l) => `${l.failures} / ${l.threshold}` },
                { label: 'Locked until', cell: (l) => (l.hardLocked ? 'until a PIN reset' : when(l.lockedUntil)) },
              ]}
            />
          </>
        )}
      </Part>
      {person.merchant && can(session, 'statements.read') && (
        <Text size="sm">
          <Link
            to={`/statements?${new URLSearchParams({ merchantId: person.merchant.merchantId, name: person.merchant.businessName })}`}
            testId="merchant-statement-link"
          >
            Settlement statement of {person.merchant.businessName}
          </Link>{' '}
          (yesterday by default, or any day or period, with its CSV)
        </Text>
      )}
      {person.merchant && (
        <Part title="Partner connections" unavailable={person.merchant.connections.unavailable}>
          <SimpleTable
            rows={person.merchant.connections.items ?? []}
            caption="The merchant's partner connections"
            columns={[
              { label: 'Partner', cell: (c) => <Link to={`/partners/${c.integrationId}`}>{c.integrationName}</Link> },
              { label: 'Status', cell: (c) => c.status },
              { label: 'Scopes', cell: (c) => c.scopes.join(' ') },
              { label: 'Since', cell: (c) => when(c.activatedAt ?? c.createdAt) },
            ]}
          />
        </Part>
      )}
    </Stack>
  );
}

function PersonActions({ person, reload }: { person: Person; reload: () => Promise<void> }) {
  const session = useSession();
  const userId = person.userId;
  const path = { path: { userId } };
  const [reason, setReason] = useState('');
  const [freezeReason, setFreezeReason] = useState<FreezeReason>('FRAUD_SUSPECTED');
  const [amount, setAmount] = useState<number | string>('');
  const [currency, setCurrency] = useState<Currency>('XAF');
  const reasonField = <Textarea label="Reason" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} />;
  const done = () => void reload();

  return (
    <Group>
      {can(session, 'customers.freeze') && person.status === 'active' && person.kind !== 'STAFF' && (
        <ActionDialog
          label="Freeze"
          title="Freeze this account"
          color="red"
          done={done}
          submit={() =>
            ok(
              api.POST('/api/backoffice/people/{userId}/freeze', {
                params: path,
                body: { reasonCode: freezeReason, note: reason.trim() || undefined },
              }),
            )
          }
        >
          <Select
            label="Reason code"
            required
            allowDeselect={false}
            value={freezeReason}
            onChange={(v) => v && setFreezeReason(v as FreezeReason)}
            data={Object.entries(FREEZE_REASONS).map(([value, label]) => ({ value, label }))}
          />
          <TextInput label="Note (optional)" value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
        </ActionDialog>
      )}
      {can(session, 'customers.freeze') && person.status === 'frozen' && (
        <ActionDialog
          label="Unfreeze…"
          title="Ask to unfreeze this account"
          done={done}
          submit={() => ok(api.POST('/api/backoffice/people/{userId}/unfreeze', { params: path, body: { reason } }))}
        >
          {reasonField}
        </ActionDialog>
      )}
      {can(session, 'customers.freeze') && (
        <ActionDialog
          label="End all sessions"
          title="End every session of this person"
          color="orange"
          done={done}
          submit={() => ok(api.POST('/api/backoffice/people/{userId}/sessions/revoke', { params: path, body: { reason } }))}
        >
          {reasonField}
        </ActionDialog>
      )}
      {can(session, 'users.manage') && person.kind === 'STAFF' && (
        <ActionDialog
          label="Reset second factor…"
          title="Ask to reset this staff member's second factor"
          done={done}
          submit={() => ok(api.POST('/api/backoffice/people/{userId}/second-factor/reset', { params: path, body: { reason } }))}
        >
          {reasonField}
        </ActionDialog>
      )}
      {can(session, 'users.manage') && person.kind === 'STAFF' && userId !== session?.me.userId && (
        <StaffAccessActions person={person} reasonField={reasonField} reason={reason} done={done} />
      )}
      {can(session, 'ledger.corrections') && person.agent && (
        <ActionDialog
          label="Fund float…"
          title="Fund this agent's float"
          done={done}
          submit={() =>
            ok(
              api.POST('/api/backoffice/ledger/agents/{agentId}/float-fundings', {
                params: { path: { agentId: person.agent!.agentId } },
                body: { amount: Number(amount), currency, reason },
              }),
            )
          }
        >
          <NumberInput
            label="Amount (smallest unit)"
            required
            allowDecimal={false}
            allowNegative={false}
            value={amount}
            onChange={setAmount}
            thousandSeparator=" "
          />
          <Select
            label="Currency"
            required
            allowDeselect={false}
            value={currency}
            onChange={(v) => v && setCurrency(v as Currency)}
            data={CURRENCIES}
          />
          {reasonField}
        </ActionDialog>
      )}
    </Group>
  );
}

/**
 * An administrator asks to end a staff member's access (STAFF_DISABLE: once another administrator
 * approves, auth disables the account and ends every session) or to give it back (STAFF_ENABLE).
 * The sign-in account's status decides which is offered; when it is unavailable both are, and the
 * platform refuses the one that does not apply (STAFF_ALREADY_DISABLED, STAFF_NOT_DISABLED).
 */
function StaffAccessActions(props: { person: Person; reasonField: ReactNode; reason: string; done: () => void }) {
  const path = { path: { userId: props.person.userId } };
  const status = props.person.security.value?.status;
  return (
    <>
      {status !== 'DISABLED' && (
        <ActionDialog
          label="Disable staff access…"
          title="Ask to disable this staff member"
          color="red"
          done={props.done}
          submit={() => ok(api.POST('/api/backoffice/people/{userId}/disable', { params: path, body: { reason: props.reason } }))}
        >
          <Text size="sm">
            Once another administrator approves, this person can no longer sign in and every session they have ends at once.
          </Text>
          {props.reasonField}
        </ActionDialog>
      )}
      {status !== 'ACTIVE' && (
        <ActionDialog
          label="Enable staff access…"
          title="Ask to enable this staff member again"
          done={props.done}
          submit={() => ok(api.POST('/api/backoffice/people/{userId}/enable', { params: path, body: { reason: props.reason } }))}
        >
          <Text size="sm">Once another administrator approves, this person can sign in again.</Text>
          {props.reasonField}
        </ActionDialog>
      )}
    </>
  );
}
