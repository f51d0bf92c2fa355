import { Button, Container, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../api/client';
import { ErrorNotice } from '../ui/ErrorNotice';
import { startSession } from './session';

/** Phone and PIN. */
export function SignIn() {
  const [phone, setPhone] = useState('');
  const [pin, setPin] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await ok(api.POST('/api/auth/login', { body: { phone, pin } }));
      await startSession(answer);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Container size={420} py="xl" component="main" id="main">
      <Title order={1} mb="md">
        Operators' console
      </Title>
      <form onSubmit={submit} aria-label="Sign in">
        <Stack>
          <ErrorNotice error={error} title="Sign-in refused" />
          <TextInput
            label="Phone number"
            placeholder="+237699000001"
            autoComplete="username"
            required
            value={phone}
            onChange={(e) => setPhone(e.currentTarget.value)}
            data-autofocus
          />
          <PasswordInput label="PIN" autoComplete="current-password" required value={pin} onChange={(e) => setPin(e.currentTarget.value)} />
          <Button type="submit" loading={busy}>
            Sign in
          </Button>
        </Stack>
      </form>
    </Container>
  );
}
