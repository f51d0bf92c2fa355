import { Alert, Button, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { type Endpoint, type Mode, MODES } from './labels';
import { SecretRotation } from './SecretRotation';

/**
 * For administrators (partners.manage): point an endpoint at a new URL, ask for a new signing secret
 * (a maker-checker request, see SecretRotation), and revoke the whole integration.
 */
export function EndpointSettings(props: { integrationId: string; endpoints: Endpoint[]; active: boolean; onChanged: () => void }) {
  const [mode, setMode] = useState<Mode>('live');
  const [url, setUrl] = useState(() => props.endpoints.find((e) => e.mode === 'live')?.url ?? '');
  const [busy, setBusy] = useState<'url' | 'revoke'>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [confirmRevoke, setConfirmRevoke] = useState(false);
  const path = { path: { integrationId: props.integrationId } };

  async function run(what: 'url' | 'revoke', action: () => Promise<void>) {
    setBusy(what);
    setError(undefined);
    setDone(undefined);
    try {
      await action();
      props.onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(undefined);
    }
  }

  const saveUrl = (event: FormEvent) => {
    event.preventDefault();
    void run('url', async () => {
      const endpoint = await ok(
        api.PUT('/api/admin/partners/integrations/{integrationId}/webhook-endpoint', { params: path, body: { mode, url: url.trim() } }),
      );
      setDone(`The ${endpoint.mode} endpoint now delivers to ${endpoint.url}.`);
    });
  };
  const revoke = () =>
    run('revoke', async () => {
      await ok(api.POST('/api/admin/partners/integrations/{integrationId}/revoke', { params: path }));
      setConfirmRevoke(false);
      setDone('The integration is revoked: its keys stop working and its connections end.');
    });

  return (
    <Stack component="section" aria-labelledby="settings-title" gap="xs">
      <Title order={2} size="h4" id="settings-title">
        Webhook settings
      </Title>
      <ErrorNotice error={error} />
      {done && (
        <Alert color="green" role="status" data-testid="settings-result">
          {done}
        </Alert>
      )}
      <form onSubmit={saveUrl} aria-label="Webhook endpoint URL">
        <Group align="end">
          <Select
            label="Endpoint"
            allowDeselect={false}
            data={MODES}
            value={mode}
            onChange={(value) => {
              if (!value) return;
              setMode(value as Mode);
              setUrl(props.endpoints.find((e) => e.mode === value)?.url ?? '');
            }}
            w={120}
          />
          <TextInput label="Webhook URL" required value={url} onChange={(e) => setUrl(e.currentTarget.value)} style={{ flex: 1 }} />
          <Button type="submit" variant="default" loading={busy === 'url'}>
            Save URL
          </Button>
        </Group>
      </form>
      <SecretRotation integrationId={props.integrationId} active={props.active} />
      {props.active && (
        <Group>
          {!confirmRevoke ? (
            <Button color="red" variant="outline" onClick={() => setConfirmRevoke(true)}>
              Revoke integration…
            </Button>
          ) : (
            <>
              <Text size="sm" c="red">
                Revoking ends every key and connection of this integration. This cannot be undone.
              </Text>
              <Button color="red" loading={busy === 'revoke'} onClick={() => void revoke()}>
                Yes, revoke the integration
              </Button>
              <Button variant="default" onClick={() => setConfirmRevoke(false)}>
                Keep it
              </Button>
            </>
          )}
        </Group>
      )}
    </Stack>
  );
}
