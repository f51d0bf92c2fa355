import { Alert, Button, Code, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { when } from '../../ui/format';
import { type Endpoint, type Mode, MODES } from './labels';

type Rotated = components['schemas']['RotatedWebhookSecretDto'];

/**
 * For administrators (partners.manage): point an endpoint at a new URL, rotate its signing secret
 * (the new one shown once, the old one still signing for a while), and revoke the whole integration.
 */
export function EndpointSettings(props: { integrationId: string; endpoints: Endpoint[]; active: boolean; onChanged: () => void }) {
  const [mode, setMode] = useState<Mode>('live');
  const [url, setUrl] = useState(() => props.endpoints.find((e) => e.mode === 'live')?.url ?? '');
  const [busy, setBusy] = useState<'url' | 'secret' | 'revoke'>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [rotated, setRotated] = useState<Rotated>();
  const [confirmRevoke, setConfirmRevoke] = useState(false);
  const path = { path: { integrationId: props.integrationId } };

  async function run(what: 'url' | 'secret' | 'revoke', action: () => Promise<void>) {
    setBusy(what);
    setError(undefined);
    setDone(undefined);
    setRotated(undefined);
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
  const rotate = () =>
    run('secret', async () => {
      setRotated(
        await ok(api.POST('/api/admin/partners/integrations/{integrationId}/webhook-secret/rotate', { params: path, body: { mode } })),
      );
    });
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
      {rotated && (
        <Alert color="green" title="New signing secret — copy it now, it is not shown again" data-testid="rotated-secret">
          <Text size="sm">
            {rotated.mode}: <Code>{rotated.secret}</Code>. The previous secret also signs until {when(rotated.previousSecretExpiresAt)}.
          </Text>
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
          <Button variant="default" loading={busy === 'secret'} onClick={() => void rotate()}>
            Rotate {mode} signing secret
          </Button>
        </Group>
      </form>
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
