import { Alert, Button, Group, Stack, Text, Textarea, Title } from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiFailure, api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { SubmittedRequest } from '../partners/SubmittedRequest';
import { type Section, SECTION_LABELS } from './labels';

type Approval = components['schemas']['ApprovalRequestView'];
type Version = components['schemas']['ConfigVersionView'];
type Answer = { data?: Approval | Version; error?: unknown; response: Response };

/** Sends the new document of one section: each section has its own route and document type. */
function post(section: Section, document: unknown, baseVersion: number, reason: string): Promise<Answer> {
  switch (section) {
    case 'pricing':
      return api.POST('/api/config/pricing/versions', {
        body: { document: document as components['schemas']['PricingDocumentDto'], baseVersion, reason },
      });
    case 'limits':
      return api.POST('/api/config/limits/versions', {
        body: { document: document as components['schemas']['LimitsDocumentDto'], baseVersion, reason },
      });
    case 'risk':
      return api.POST('/api/config/risk/versions', {
        body: { document: document as components['schemas']['RiskDocumentDto'], baseVersion, reason },
      });
    case 'monitoring':
      return api.POST('/api/config/monitoring/versions', {
        body: { document: document as components['schemas']['MonitoringDocumentDto'], baseVersion, reason },
      });
  }
}

/**
 * Proposes a new version of a section: the document in force, edited as JSON, with a reason. The
 * change is a CONFIG_CHANGE request: pending until another administrator approves it (202, linked
 * here), or in force at once when configuration lets one person make it (201).
 */
export function ChangeForm({ section, latest, onChanged }: { section: Section; latest: number | undefined; onChanged: () => void }) {
  const [text, setText] = useState('');
  const [base, setBase] = useState<number>();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [submitted, setSubmitted] = useState<Approval>();
  const [applied, setApplied] = useState<Version>();

  useEffect(() => {
    setSubmitted(undefined);
    setApplied(undefined);
    setError(undefined);
    setText('');
    if (latest === undefined) return;
    let current = true;
    ok(api.GET('/api/config/{section}/versions/{version}', { params: { path: { section, version: latest } } })).then(
      (version) => {
        if (!current) return;
        setText(JSON.stringify(version.document, null, 2));
        setBase(version.version);
      },
      (failure) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [section, latest]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    setSubmitted(undefined);
    setApplied(undefined);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (failure) {
      setError(new Error(`The document is not valid JSON: ${(failure as Error).message}`));
      return;
    }
    if (base === undefined) return;
    setBusy(true);
    try {
      const answer = await post(section, document, base, reason.trim());
      const data = await ok(Promise.resolve(answer));
      if (answer.response.status === 202) setSubmitted(data as Approval);
      else setApplied(data as Version);
      setReason('');
      onChanged();
    } catch (failure) {
      setError(failure instanceof ApiFailure || failure instanceof Error ? failure : new Error(String(failure)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="xs" component="section" aria-labelledby={`change-${section}`}>
      <Title order={2} size="h4" id={`change-${section}`}>
        Propose a change
      </Title>
      <Text size="sm" c="dimmed">
        Edit the complete {SECTION_LABELS[section].toLowerCase()} document (it replaces version {base ?? '…'}). Another administrator
        approves it in the approvals inbox before it takes effect.
      </Text>
      <SubmittedRequest request={submitted} />
      {applied && (
        <Alert color="green" role="status" data-testid="config-applied">
          Version {applied.version} of {applied.section} is in force.
        </Alert>
      )}
      <ErrorNotice error={error} title="The change was refused" />
      <form onSubmit={submit} aria-label={`Propose a change to ${SECTION_LABELS[section]}`}>
        <Stack gap="xs">
          <Textarea
            label="New document (JSON)"
            description="Amounts are integers in the smallest unit; rates in basis points"
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            autosize
            minRows={8}
            maxRows={24}
            styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
            spellCheck={false}
          />
          <Textarea
            label="Reason for the change"
            description="At least 3 characters; the approver and the history show it"
            required
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            autosize
            minRows={2}
          />
          <Group>
            <Button type="submit" loading={busy} disabled={base === undefined}>
              Submit for approval
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
