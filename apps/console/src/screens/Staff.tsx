import { Alert, Button, Code, Group, PasswordInput, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNotice } from '../ui/ErrorNotice';

type CreateStaff = components['schemas']['CreateStaffDto'];
type Registration = components['schemas']['RegistrationView'];

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

/** The administrator creates a staff user; the new user enrols a second factor at first sign-in. */
export function Staff() {
  const [form, setForm] = useState<CreateStaff>({ role: 'SUPPORT', phone: '', pin: '', firstName: '', lastName: '', countryCode: 'CM' });
  // one idempotency key per intended creation: a retry after a lost answer creates nobody twice
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<Registration>();
  const set = (patch: Partial<CreateStaff>) => setForm((f) => ({ ...f, ...patch }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: CreateStaff = { ...form, email: form.email || undefined };
      setCreated(await ok(api.POST('/api/orchestrator/admin/staff', { body, params: { header: { 'Idempotency-Key': requestId } } })));
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
      {created && (
        <Alert color="green" title="Staff user created" data-testid="staff-created">
          <Text size="sm">
            {created.phone} is now {created.role}; user id <Code>{created.userId}</Code>. They set up their authenticator at first sign-in.
          </Text>
        </Alert>
      )}
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
              description="4 to 6 digits, not an easy sequence"
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
