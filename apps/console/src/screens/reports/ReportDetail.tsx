import { Alert, Badge, Button, Group, Select, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { FactsTable } from '../../ui/FactsTable';
import { ActionDialog } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { Part } from '../../ui/Part';
import { SimpleTable } from '../../ui/SimpleTable';
import { openPrintable, saveCsv, textOf } from '../../ui/documents';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';
import { DeadlineBadge } from './Reports';
import { type ContentOperation, type ReportContent, type ReportDetail as Detail, STATE_COLORS, kindLabel, stateLabel } from './labels';

type Verification = components['schemas']['ReportVerificationView'];
type FilingChannel = components['schemas']['ReportFilingBody']['channel'];
type SendingChannel = components['schemas']['ReportSentBody']['channel'];

/** A datetime-local field's value as an instant, or undefined (the platform then takes "now"). */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

const party = (p: ContentOperation['source']) => `${p.name}${p.phone ? ` (${p.phone})` : ''} · ${p.role}`;

/**
 * One regulatory report: what it says (the stored content), its documents (CSV, printable page, both
 * exactly as stored), a check of its hashes, and what happened to it afterwards — a suspicion report
 * filed by phone or electronically then confirmed in writing within 48 hours, a daily report sent.
 */
export function ReportDetail({ params }: ScreenProps) {
  const path = { path: { id: params.id } };
  const { data: report, error, reload } = useLoad(() => ok(api.GET('/api/v1/compliance/reports/{id}', { params: path })), [params.id]);
  const [docError, setDocError] = useState<unknown>();
  const [verification, setVerification] = useState<Verification>();

  async function document(format: 'csv' | 'html') {
    setDocError(undefined);
    const fetchIt = () =>
      textOf(api.GET('/api/v1/compliance/reports/{id}/document', { params: { ...path, query: { format } }, parseAs: 'text' }));
    try {
      if (format === 'csv') await saveCsv(`${report?.reference ?? 'report'}.csv`, fetchIt);
      else await openPrintable(fetchIt);
    } catch (failure) {
      setDocError(failure);
    }
  }

  async function verify() {
    setDocError(undefined);
    setVerification(undefined);
    try {
      setVerification(await ok(api.GET('/api/v1/compliance/reports/{id}/verification', { params: path })));
    } catch (failure) {
      setDocError(failure);
    }
  }

  if (error) return <ErrorNotice error={error} />;
  if (!report) return <Text aria-live="polite">Loading…</Text>;
  const content = report.content as unknown as ReportContent;
  const done = () => void reload();
  return (
    <Stack data-testid="report-detail">
      <Group>
        <Text fw={700} size="lg" data-testid="report-reference">
          {report.reference}
        </Text>
        <Badge variant="outline">{kindLabel(report.kind)}</Badge>
        <Badge size="lg" color={STATE_COLORS[report.state] ?? 'gray'} data-testid="report-state">
          {stateLabel(report.state)}
        </Badge>
        <DeadlineBadge report={report} />
      </Group>
      <Group>
        <Button variant="default" onClick={() => void document('csv')}>
          Download CSV
        </Button>
        <Button variant="default" onClick={() => void document('html')}>
          Open printable page
        </Button>
        <Button variant="default" onClick={() => void verify()}>
          Check the stored report
        </Button>
        <ReportActions report={report} done={done} />
      </Group>
      <ErrorNotice error={docError} />
      {verification && <VerificationNotice verification={verification} />}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Part title="Report">
          <FactsTable testId="report-facts" facts={reportFacts(report)} />
        </Part>
        {report.kind === 'SUSPICION' ? <SuspicionSummary content={content} /> : <DailySummary content={content} />}
      </SimpleGrid>
      <Part title="Operations">
        <SimpleTable
          rows={content.operations ?? []}
          caption={`The ${report.operationCount} operations the report lists`}
          testId="report-operations"
          columns={[
            { label: 'When', cell: (o) => when(o.completedAt ?? o.occurredAt) },
            { label: 'Reference', cell: (o) => <Link to={`/payments/${encodeURIComponent(o.reference)}`}>{o.reference}</Link> },
            { label: 'Type', cell: (o) => o.category ?? o.type },
            { label: 'Amount', cell: (o) => money(o.amount, o.currency) },
            { label: 'From', cell: (o) => party(o.source) },
            { label: 'To', cell: (o) => party(o.destination) },
            ...(report.kind === 'SUSPICION' ? [{ label: 'Alerts', cell: (o: ContentOperation) => (o.alertRules ?? []).join(', ') }] : []),
          ]}
        />
      </Part>
    </Stack>
  );
}

function reportFacts(report: Detail): Array<[string, ReactNode]> {
  const facts: Array<[string, ReactNode]> = [
    ['Day', report.periodDate],
    [
      'Generated',
      `${when(report.generatedAt)} by ${report.generatedBy === 'system' ? 'the daily job' : `${report.generatedByRole} ${report.generatedBy}`}`,
    ],
    ['Operations', String(report.operationCount)],
  ];
  if (report.caseId) facts.push(['Case', <Link to={`/compliance/cases/${report.caseId}`}>Open the case</Link>]);
  if (report.filing)
    facts.push(['Filed', `${report.filing.channel} at ${when(report.filing.filedAt)}, recorded by ${report.filing.filedBy}`]);
  if (report.confirmationDueAt) facts.push(['Written confirmation due', when(report.confirmationDueAt)]);
  if (report.writtenConfirmation)
    facts.push([
      'Confirmed in writing',
      `${report.writtenConfirmation.reference}, sent ${when(report.writtenConfirmation.sentAt)} by ${report.writtenConfirmation.sentBy}`,
    ]);
  if (report.sent)
    facts.push([
      'Sent',
      `${report.sent.channel} at ${when(report.sent.sentAt)} by ${report.sent.sentBy}${report.sent.reference ? ` (${report.sent.reference})` : ''}`,
    ]);
  facts.push([
    'SHA-256 (CSV)',
    <Text span ff="monospace" size="xs" title={report.csvSha256}>
      {report.csvSha256.slice(0, 24)}…
    </Text>,
  ]);
  return facts;
}

function SuspicionSummary({ content }: { content: ReportContent }) {
  return (
    <Part title="Suspicion" testId="report-suspicion">
      <Text size="sm">
        Subject:{' '}
        {content.subject ? (
          <Link to={`/people/${content.subject.userId}`}>
            {content.subject.name ?? content.subject.userId}
            {content.subject.phone ? ` (${content.subject.phone})` : ''}
          </Link>
        ) : (
          '—'
        )}{' '}
        · {content.subject?.kind}
      </Text>
      <Text size="sm" fw={600}>
        Grounds
      </Text>
      <ul style={{ margin: 0 }}>
        {(content.grounds ?? []).map((g) => (
          <li key={g}>
            <Text size="sm">{g}</Text>
          </li>
        ))}
      </ul>
      <Text size="sm" fw={600}>
        Narrative
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="report-narrative">
        {content.narrative}
      </Text>
      <Text size="sm">
        Totals: {(content.totals ?? []).map((t) => `${t.count} operations, ${money(t.amount, t.currency)}`).join('; ') || '—'}
      </Text>
    </Part>
  );
}

function DailySummary({ content }: { content: ReportContent }) {
  return (
    <Part title="Categories">
      <Text size="sm">
        Thresholds: {(content.thresholds ?? []).map((t) => money(t.minAmount, t.currency)).join(', ')} · day in{' '}
        {content.timeZone ?? 'UTC+01:00'}
      </Text>
      <SimpleTable
        rows={(content.categories ?? []).flatMap((c) =>
          c.totals.length > 0
            ? c.totals.map((t) => ({ category: c.category, ...t }))
            : [{ category: c.category, currency: '', count: 0, amount: '0' }],
        )}
        caption="Operations at or above the threshold, per category and currency"
        columns={[
          { label: 'Category', cell: (t) => t.category },
          { label: 'Operations', cell: (t) => t.count },
          { label: 'Amount', cell: (t) => (t.currency ? money(t.amount, t.currency) : '—') },
        ]}
      />
    </Part>
  );
}

function VerificationNotice({ verification }: { verification: Verification }) {
  const sound = verification.storedIntact && verification.identical;
  const { added, removed, changed } = verification.differences;
  return (
    <Alert
      color={sound ? 'green' : 'red'}
      title={sound ? 'The stored report is intact' : 'The stored report differs'}
      data-testid="report-verification"
    >
      <Text size="sm">
        Stored documents {verification.storedIntact ? 'match their hashes' : 'do NOT match their hashes'};{' '}
        {verification.identical ? 'rebuilt now, the content is identical' : 'rebuilt now, the content differs'} (SHA-256{' '}
        <Text span ff="monospace" size="xs">
          {verification.recomputedSha256.slice(0, 16)}…
        </Text>
        ).
        {added.length + removed.length + changed.length > 0 &&
          ` Found now but not stored: ${added.join(', ') || 'none'}; stored but not found: ${removed.join(', ') || 'none'}; changed: ${changed.join(', ') || 'none'}.`}
      </Text>
    </Alert>
  );
}

/** What may happen next to the report, by kind and state. */
function ReportActions({ report, done }: { report: Detail; done: () => void }) {
  const path = { path: { id: report.id } };
  const [channel, setChannel] = useState<FilingChannel>('PHONE');
  const [sending, setSending] = useState<SendingChannel>('ELECTRONIC');
  const [at, setAt] = useState('');
  const [reference, setReference] = useState('');
  const [note, setNote] = useState('');
  const atField = (label: string) => (
    <TextInput label={label} description="Empty: now" type="datetime-local" value={at} onChange={(e) => setAt(e.currentTarget.value)} />
  );
  const noteField = <Textarea label="Note (optional)" value={note} onChange={(e) => setNote(e.currentTarget.value)} />;
  if (report.kind === 'SUSPICION' && report.state === 'GENERATED')
    return (
      <ActionDialog
        label="Record the filing…"
        title="Record that the report was filed"
        closed={done}
        submit={() =>
          ok(
            api.POST('/api/v1/compliance/reports/{id}/filing', {
              params: path,
              body: { channel, filedAt: instant(at), note: note.trim() || undefined },
            }),
          )
        }
      >
        <Text size="sm">The written confirmation is due 48 hours after the filing time.</Text>
        <Select
          label="Channel"
          allowDeselect={false}
          value={channel}
          onChange={(v) => v && setChannel(v as FilingChannel)}
          data={[
            { value: 'PHONE', label: 'By phone' },
            { value: 'ELECTRONIC', label: 'Electronically' },
          ]}
        />
        {atField('Filed at')}
        {noteField}
      </ActionDialog>
    );
  if (report.kind === 'SUSPICION' && report.state === 'FILED')
    return (
      <ActionDialog
        label="Record the written confirmation…"
        title="Record the written confirmation"
        closed={done}
        submit={() =>
          ok(
            api.POST('/api/v1/compliance/reports/{id}/written-confirmation', {
              params: path,
              body: { reference: reference.trim(), sentAt: instant(at), note: note.trim() || undefined },
            }),
          )
        }
      >
        <TextInput
          label="Reference of the letter"
          required
          description="Or of its acknowledgement"
          value={reference}
          onChange={(e) => setReference(e.currentTarget.value)}
        />
        {atField('Sent at')}
        {noteField}
      </ActionDialog>
    );
  if (report.kind === 'DAILY_THRESHOLD' && report.state === 'GENERATED')
    return (
      <ActionDialog
        label="Record as sent…"
        title="Record that the report was sent"
        closed={done}
        submit={() =>
          ok(
            api.POST('/api/v1/compliance/reports/{id}/sent', {
              params: path,
              body: { channel: sending, sentAt: instant(at), reference: reference.trim() || undefined },
            }),
          )
        }
      >
        <Select
          label="Channel"
          allowDeselect={false}
          value={sending}
          onChange={(v) => v && setSending(v as SendingChannel)}
          data={[
            { value: 'ELECTRONIC', label: 'Electronically' },
            { value: 'PAPER', label: 'On paper' },
            { value: 'HAND_DELIVERY', label: 'By hand' },
          ]}
        />
        {atField('Sent at')}
        <TextInput label="Acknowledgement (optional)" value={reference} onChange={(e) => setReference(e.currentTarget.value)} />
      </ActionDialog>
    );
  return null;
}
