import { Alert, Badge, Button, Checkbox, Group, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { ActionDialog, isApproval } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';

type Entry = components['schemas']['BlocklistEntryView'];
type AddEntry = components['schemas']['AddBlocklistEntryDto'];
type ListName = Entry['list'];

/** The lists a phone can be put on, in words: a list added to the API fails the type-check until named here. */
const LISTS: Record<ListName, string> = {
  SANCTIONS: 'Sanctions (official lists)',
  FRAUD: 'Confirmed fraud',
  INTERNAL: 'Internal decision',
};
const PAGE = 50;

/**
 * Barred phones: no operation may have one as initiator, payer or payee. Compliance officers and
 * administrators read the list (compliance.audit); with customers.freeze they add a phone at once,
 * and ask for an entry to be lifted — a maker-checker request (BLOCKLIST_REMOVE) another person
 * approves. Lifted entries stay as history.
 */
export function Blocklist(_props: ScreenProps) {
  const session = useSession();
  const mayChange = can(session, 'customers.freeze');
  const [phoneInput, setPhoneInput] = useState('');
  const [phone, setPhone] = useState('');
  const [includeRemoved, setIncludeRemoved] = useState(false);
  const [version, setVersion] = useState(0);
  const [lifted, setLifted] = useState<Entry>();
  const refresh = () => setVersion((v) => v + 1);

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const offset = Number(cursor ?? 0);
      const { entries } = await ok(
        api.GET('/api/risk/blocklist', {
          params: { query: { phone: phone || undefined, includeRemoved, limit: PAGE, offset } },
        }),
      );
      return { items: entries, nextCursor: entries.length === PAGE ? String(offset + PAGE) : null };
    },
    // version: a new page 1 after an entry was added or lifted
    [phone, includeRemoved, version],
  );

  const columns: Column<Entry>[] = [
    { label: 'Phone', text: (e) => e.phone },
    { label: 'List', text: (e) => LISTS[e.list] ?? e.list },
    { label: 'Reason', text: (e) => e.reason },
    { label: 'Added', text: (e) => when(e.addedAt), csv: (e) => e.addedAt },
    {
      label: 'Status',
      text: (e) => (e.removedAt ? `lifted ${when(e.removedAt)}: ${e.removalReason ?? ''}` : 'active'),
      render: (e) =>
        e.removedAt ? (
          <Text size="sm">
            <Badge color="gray">lifted</Badge> {when(e.removedAt)}: {e.removalReason}
          </Text>
        ) : (
          <Badge color="red">active</Badge>
        ),
    },
  ];
  if (mayChange)
    columns.push({
      label: 'Actions',
      exported: false,
      text: () => '',
      render: (e) =>
        e.removedAt ? (
          '—'
        ) : (
          <LiftEntry
            entry={e}
            lifted={(entry) => {
              setLifted(entry);
              refresh();
            }}
          />
        ),
    });

  return (
    <Stack>
      {mayChange && <AddEntryForm done={refresh} />}
      <Title order={2} size="h4">
        Entries
      </Title>
      {lifted && (
        <Alert color="green" role="status" data-testid="blocklist-lifted">
          The entry of {lifted.phone} is lifted (this action needs no second person here).
        </Alert>
      )}
      <form
        aria-label="Filter the blocklist"
        onSubmit={(event) => {
          event.preventDefault();
          setPhone(phoneInput.trim());
        }}
      >
        <Group align="end">
          <TextInput
            label="Phone"
            description="E.164, the whole number; empty for every phone"
            value={phoneInput}
            onChange={(e) => setPhoneInput(e.currentTarget.value)}
            w={280}
          />
          <Button type="submit" variant="default">
            Filter
          </Button>
          <Checkbox
            label="Include lifted entries"
            checked={includeRemoved}
            onChange={(e) => setIncludeRemoved(e.currentTarget.checked)}
            mb={6}
          />
        </Group>
      </form>
      <ListView
        name="blocklist"
        caption="Blocklisted phones, newest first"
        columns={columns}
        fetchPage={fetchPage}
        rowKey={(e) => e.id}
        empty="No entry."
      />
    </Stack>
  );
}

function AddEntryForm({ done }: { done: () => void }) {
  const [form, setForm] = useState<AddEntry>({ phone: '', list: 'SANCTIONS', reason: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [added, setAdded] = useState<Entry>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setAdded(undefined);
    try {
      setAdded(await ok(api.POST('/api/risk/blocklist', { body: { ...form, phone: form.phone.trim(), reason: form.reason.trim() } })));
      setForm((f) => ({ ...f, phone: '', reason: '' }));
      done();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label="Add a phone to the blocklist">
      <Stack maw={720} gap="xs">
        <Title order={2} size="h4">
          Add a phone
        </Title>
        <ErrorNotice error={error} />
        {added && (
          <Alert color="green" role="status" data-testid="blocklist-added">
            {added.phone} is on the {LISTS[added.list] ?? added.list} list: operations involving it are refused from now on.
          </Alert>
        )}
        <SimpleGrid cols={2}>
          <TextInput
            label="Phone number"
            description="E.164, e.g. +237690000099"
            required
            value={form.phone}
            onChange={(e) => setForm({ ...form, phone: e.currentTarget.value })}
          />
          <Select
            label="List"
            required
            allowDeselect={false}
            data={Object.entries(LISTS).map(([value, label]) => ({ value, label }))}
            value={form.list}
            onChange={(value) => value && setForm({ ...form, list: value as ListName })}
          />
        </SimpleGrid>
        <Textarea
          label="Reason"
          description="Case reference, list name and date; at least 3 characters"
          required
          value={form.reason}
          onChange={(e) => setForm({ ...form, reason: e.currentTarget.value })}
          autosize
          minRows={2}
        />
        <Group>
          <Button type="submit" color="red" loading={busy}>
            Add to the blocklist
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * Lifting is a request (BLOCKLIST_REMOVE) another person approves: the entry stays as it is, so the
 * list is not reloaded (that would close the dialog showing the request). When configuration lets
 * one person lift it, the answer is the lifted entry: the screen says so and the list reloads.
 */
function LiftEntry({ entry, lifted }: { entry: Entry; lifted: (entry: Entry) => void }) {
  const [reason, setReason] = useState('');
  async function submit() {
    const answer = await ok(
      api.DELETE('/api/risk/blocklist/{id}', { params: { path: { id: entry.id }, query: { reason: reason.trim() } } }),
    );
    if (!isApproval(answer)) lifted(answer);
    return answer;
  }
  return (
    <ActionDialog label="Lift…" title={`Ask to lift the entry of ${entry.phone}`} submit={submit}>
      <Text size="sm">Another person holding the same permission must approve it; until then the phone stays barred.</Text>
      <Textarea label="Reason" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} autosize minRows={2} />
    </ActionDialog>
  );
}
