import { Alert, Button, Code, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { SubmittedRequest } from './SubmittedRequest';

type Create = components['schemas']['CreateIntegrationDto'];
/**
 * What creating answers. The live key may wait for a second person's approval: then it is null and
 * `liveKeyRequest` is the pending request (the maker collects the key once it is approved).
 */
type Created = components['schemas']['AdminCreatedIntegrationView'];

const EMPTY: Create = { name: '', technicalContactEmail: '', webhookUrl: '', testWebhookUrl: '' };

/**
 * An administrator (partners.manage) creates an integration: the answer holds its two API keys and
 * its two webhook signing secrets, shown this once for the partner to store.
 */
export function CreateIntegration({ onCreated }: { onCreated: () => void }) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<Create>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<Created>();
  const set = (patch: Partial<Create>) => setForm((f) => ({ ...f, ...patch }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Create = { ...form, testWebhookUrl: form.testWebhookUrl?.trim() || undefined };
      setCreated(await ok(api.POST('/api/admin/partners/integrations', { body })));
      setForm(EMPTY);
      setOpen(false);
      onCreated();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="xs" mb="md">
      {created && (
        <Alert
          color="green"
          title="Integration created — copy its keys and secrets now, they are not shown again"
          data-testid="integration-created"
        >
          <Text size="sm" mb="xs">
            <Link to={`/partners/${created.integration.id}`}>{created.integration.name}</Link> ({created.integration.id})
          </Text>
          <Table withTableBorder variant="vertical">
            <Table.Tbody>
              {(['live', 'test'] as const).map((mode) => (
                <Table.Tr key={mode}>
                  <Table.Th scope="row">{mode}</Table.Th>
                  <Table.Td>
                    API key{' '}
                    {created.apiKeys[mode] ? (
                      <Code>{created.apiKeys[mode].key}</Code>
                    ) : (
                      <Text span size="sm">
                        waiting for approval: collect it on the integration page once approved
                      </Text>
                    )}
                    <br />
                    webhook signing secret <Code>{created.webhookSecrets[mode]}</Code>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <SubmittedRequest request={created.liveKeyRequest ?? undefined} />
        </Alert>
      )}
      {!open ? (
        <Group>
          <Button variant="default" onClick={() => setOpen(true)}>
            New integration…
          </Button>
        </Group>
      ) : (
        <form onSubmit={submit} aria-label="Create an integration">
          <Stack maw={760} gap="xs">
            <Title order={2} size="h4">
              New integration
            </Title>
            <ErrorNotice error={error} title="The integration was not created" />
            <SimpleGrid cols={2}>
              <TextInput label="Name" required value={form.name} onChange={(e) => set({ name: e.currentTarget.value })} />
              <TextInput
                label="Technical contact email"
                type="email"
                required
                value={form.technicalContactEmail}
                onChange={(e) => set({ technicalContactEmail: e.currentTarget.value })}
              />
              <TextInput
                label="Live webhook URL"
                description="Receives live-mode events"
                required
                value={form.webhookUrl}
                onChange={(e) => set({ webhookUrl: e.currentTarget.value })}
              />
              <TextInput
                label="Test webhook URL (optional)"
                description="Test-mode events; the live URL when empty"
                value={form.testWebhookUrl ?? ''}
                onChange={(e) => set({ testWebhookUrl: e.currentTarget.value })}
              />
            </SimpleGrid>
            <Group>
              <Button type="submit" loading={busy}>
                Create integration
              </Button>
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
