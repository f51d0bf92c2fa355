import { Alert, Button, Code, Container, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNotice } from '../ui/ErrorNotice';
import { sessionEndedBecause, startSession } from './session';

type Challenge = components['schemas']['SecondFactorChallengeDoc'];

/**
 * Phone and PIN, then (staff always) the authenticator's code. At the first sign-in the platform
 * answers a new TOTP secret: shown as text and as an otpauth URI to paste into an authenticator app,
 * and sends a code by SMS to the staff member's phone; the first code the app shows and the SMS
 * code together complete the enrolment (the PIN alone, which an administrator may know, does not).
 */
export function SignIn() {
  const [phone, setPhone] = useState('');
  const [pin, setPin] = useState('');
  const [code, setCode] = useState('');
  const [smsCode, setSmsCode] = useState('');
  const [challenge, setChallenge] = useState<Challenge>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function attempt(step: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await step();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const submitPin = (event: FormEvent) => {
    event.preventDefault();
    void attempt(async () => {
      const answer = await ok(api.POST('/api/auth/login', { body: { phone, pin } }));
      setPin('');
      if ('secondFactor' in answer) setChallenge(answer);
      else await startSession(answer);
    });
  };

  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    if (!challenge) return;
    void attempt(async () => {
      const enrolling = challenge.secondFactor === 'TOTP_ENROLMENT_REQUIRED';
      const body = { challengeToken: challenge.challengeToken, code, ...(enrolling ? { smsCode } : {}) };
      const pair = await ok(api.POST('/api/auth/login/second-factor', { body }));
      await startSession(pair);
    });
  };

  return (
    <Container size={480} py="xl" component="main" id="main">
      <Title order={1} mb="md">
        Operators' console
      </Title>
      {sessionEndedBecause() && !error && (
        <Alert color="yellow" title="Signed out" data-testid="session-ended">
          {sessionEndedBecause()}
        </Alert>
      )}
      <ErrorNotice error={error} title="Sign-in refused" />
      {!challenge ? (
        <form onSubmit={submitPin} aria-label="Sign in">
          <Stack mt="md">
            <TextInput
              label="Phone number"
              placeholder="+237699000001"
              autoComplete="username"
              required
              value={phone}
              onChange={(e) => setPhone(e.currentTarget.value)}
            />
            <PasswordInput
              label="PIN"
              autoComplete="current-password"
              required
              value={pin}
              onChange={(e) => setPin(e.currentTarget.value)}
            />
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      ) : (
        <form onSubmit={submitCode} aria-label="Second factor">
          <Stack mt="md">
            {challenge.secondFactor === 'TOTP_ENROLMENT_REQUIRED' && (
              <Alert color="blue" title="Set up your authenticator" data-testid="totp-enrolment">
                <Text size="sm">
                  Add this account to an authenticator app (RFC 6238, 6 digits, 30 s), then enter the code it shows and the code just sent
                  by SMS to your phone.
                </Text>
                <Text size="sm" mt="xs">
                  Secret: <Code data-testid="totp-secret">{challenge.secret}</Code>
                </Text>
                <Text size="sm" mt="xs" style={{ wordBreak: 'break-all' }}>
                  URI: <Code data-testid="totp-uri">{challenge.otpauthUri}</Code>
                </Text>
              </Alert>
            )}
            <TextInput
              label="Authenticator code"
              description="6 digits from your authenticator app"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              required
              value={code}
              onChange={(e) => setCode(e.currentTarget.value.trim())}
              data-autofocus
            />
            {challenge.secondFactor === 'TOTP_ENROLMENT_REQUIRED' && (
              <TextInput
                label="SMS code"
                description="6 digits sent by SMS to your phone with this sign-in"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                required
                value={smsCode}
                onChange={(e) => setSmsCode(e.currentTarget.value.trim())}
              />
            )}
            <Button type="submit" loading={busy}>
              Verify
            </Button>
            <Button
              variant="subtle"
              onClick={() => {
                setChallenge(undefined);
                setCode('');
                setSmsCode('');
              }}
            >
              Start again
            </Button>
          </Stack>
        </form>
      )}
    </Container>
  );
}
