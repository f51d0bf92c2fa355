import { Alert, Button, Code, Group, PasswordInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../api/client';
import type { components } from '../api/schema';
import { isApproval } from '../ui/ActionForm';
import { ErrorNotice } from '../ui/ErrorNotice';
import { SubmittedRequest } from './partners/SubmittedRequest';

type CreateStaff = components['schemas']['CreateStaffDto'];
type Registration = components['schemas']['RegistrationView'];
type Approval = components['schemas']['ApprovalRequestView'];
/** 201: created at once (support, auditor, the platform's first checker); 202: a STAFF_CREATE request waiting for a checker. */
type Outcome = { kind: 'created'; registration: Registration } | { kind: 'requested'; request: Approval; phone: string };

/** Every role the route accepts, named: a role added to or removed from the API fails the type-check here. */
const ROLES: Record<CreateStaff['role'], string> = {
  SUPPORT: 'Support operator',
  COMPLIANCE: 'Compliance / finance officer',
  AUDITOR: 'Auditor (read-only)',
};
const COUNTRIES: Record<CreateStaff['countryCode'], string> = {
  CM: 'Cameroon',
  CF: 'Central African Republic',
  TD: 'Chad',
  CG: 'Congo',
  GQ: 'Equatorial Guinea',
  GA: 'Gabon',
  BJ: 'Benin',
  BF: 'Burkina Faso',
  CI: "Côte d'Ivoire",
  GW: 'Guinea-Bissau',
  ML: 'Mali',
  NE: 'Niger',
  SN: 'Senegal',
  TG: 'Togo',
};

/**
 * The administrator creates a staff user. Support operators and auditors are created at once; a
 * compliance officer decides maker-checker requests, so creating one is itself a request (STAFF_CREATE)
 * that a compliance officer or another administrator approves — except the platform's very first,
 * created at once by the bootstrap administrator. The new user enrols a second factor at first sign-in.
 */
export function Staff() {
  const [form, setForm] = useState<CreateStaff>({ role: 'SUPPORT', phone: '', pin: '', firstName: '', lastName: '', countryCode: 'CM' });
  // one idempotency key per intended creation: a retry after a lost answer creates nobody twice
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [outcome, setOutcome] = useState<Outcome>();
  const set = (patch: Partial<CreateStaff>) => setForm((f) => ({ ...f, ...patch }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      const body: CreateStaff = { ...form, email: form.email || undefined };
      const answer = await ok(api.POST('/api/orchestrator/admin/staff', { body, params: { header: { 'Idempotency-Key': requestId } } }));
      setOutcome(
        isApproval(answer) ? { kind: 'requested', request: answer, phone: body.phone } : { kind: 'created', registration: answer },
      );
      setRequestId(crypto.randomUUID());
      setForm((f) => ({ ...f, phone: '', pin: '', firstName: '', lastName: '', email: undefined }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack maw={720}>
      {outcome?.kind === 'created' && <Created registration={outcome.registration} />}
      {outcome?.kind === 'requested' && <Requested request={outcome.request} phone={outcome.phone} />}
      <ErrorNotice error={error} />
      <form onSubmit={submit} aria-label="Create a staff user">
        <Stack>
          <Select
            label="Role"
            required
            allowDeselect={false}
            data={Object.entries(ROLES).map(([value, label]) => ({ value, label }))}
            value={form.role}
            onChange={(value) => value && set({ role: value as CreateStaff['role'] })}
          />
          <SimpleGrid cols={2}>
            <TextInput label="First name" required value={form.firstName} onChange={(e) => set({ firstName: e.currentTarget.value })} />
            <TextInput label="Last name" required value={form.lastName} onChange={(e) => set({ lastName: e.currentTarget.value })} />
            <TextInput
              label="Phone number"
              description="E.164, e.g. +237690000001"
              required
              value={form.phone}
              onChange={(e) => set({ phone: e.currentTarget.value })}
            />
            <PasswordInput
              label="First PIN"
              description={
                form.role === 'COMPLIANCE'
                  ? '4 to 6 digits. Used only if the officer is created at once; once approved, they choose their own by SMS'
                  : '4 to 6 digits, not an easy sequence; tell it to the new user'
              }
              required
              value={form.pin}
              onChange={(e) => set({ pin: e.currentTarget.value })}
            />
            <Select
              label="Country"
              required
              allowDeselect={false}
              data={Object.entries(COUNTRIES).map(([value, label]) => ({ value, label }))}
              value={form.countryCode}
              onChange={(value) => value && set({ countryCode: value as CreateStaff['countryCode'] })}
            />
            <TextInput
              label="Email (optional)"
              type="email"
              value={form.email ?? ''}
              onChange={(e) => set({ email: e.currentTarget.value })}
            />
          </SimpleGrid>
          <Group>
            <Button type="submit" loading={busy}>
              Create staff user
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}

function Created({ registration }: { registration: Registration }) {
  return (
    <Alert color="green" title="Staff user created" data-testid="staff-created" role="status">
      <Text size="sm">
        {registration.phone} is now {registration.role}; user id <Code>{registration.userId}</Code>. They sign in with the PIN typed here
        and set up their authenticator at first sign-in.
      </Text>
      {registration.bootstrapException && (
        <Text size="sm" mt="xs" data-testid="bootstrap-exception">
          Created at once as the platform’s first checker: nobody else could have approved it. Every further compliance officer or
          administrator waits for the approval of another one.
        </Text>
      )}
    </Alert>
  );
}

function Requested({ request, phone }: { request: Approval; phone: string }) {
  return (
    <Stack gap="xs" data-testid="staff-requested">
      <SubmittedRequest request={request} />
      {request.status !== 'FAILED' && (
        <Alert color="blue" title="What happens next" role="note">
          <Text size="sm">
            A compliance officer or another administrator must approve this request; nothing is created before. The request does not keep
            the PIN typed here: once approved, the platform creates {phone} with a random PIN nobody is told. The new staff member then
            chooses their own PIN with the PIN reset by SMS (a code sent to {phone}), signs in, and sets up their authenticator.
          </Text>
          <Text size="xs" c="dimmed" mt="xs">
            PIN reset: <Code>POST /api/auth/reset-pin/request</Code> with the phone, then <Code>POST /api/orchestrator/auth/reset-pin</Code>{' '}
            with the phone, the code received and the new PIN (the same steps as a customer’s).
          </Text>
        </Alert>
      )}
    </Stack>
  );
}
