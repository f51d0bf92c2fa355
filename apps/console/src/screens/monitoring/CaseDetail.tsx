import { Alert, Badge, Button, Group, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { can, useSession } from '../../session/session';
import { FactsTable } from '../../ui/FactsTable';
import { ActionDialog } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { Part } from '../../ui/Part';
import { SimpleTable } from '../../ui/SimpleTable';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';
import { CaseStatusText } from './Cases';
import { type CaseDetail as Detail, DECISION_LABELS, EVENT_LABELS, duration, ruleLabel, shortId } from './labels';

type Report = { id: string; reference: string };

/** An event's details as "key: value" pairs (ids shortened; the full text is in the audit trail and the API). */
function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(', ');
}

/**
 * One compliance case (docs/monitoring.md "Cases"): who it is about, its alerts, the operations behind
 * them, the evidence, its clock and its full history; and what the officer does with it — take it or
 * give it to another officer, write notes, attach evidence, and decide: no action, a freeze (four eyes)
 * or a suspicion report (docs/regulatory-reports.md).
 */
export function CaseDetail({ params }: ScreenProps) {
  const session = useSession();
  const path = { path: { caseId: params.caseId } };
  const { data: item, error, reload } = useLoad(() => ok(api.GET('/api/v1/compliance/cases/{caseId}', { params: path })), [params.caseId]);
  if (error) return <ErrorNotice error={error} />;
  if (!item) return <Text aria-live="polite">Loading…</Text>;
  const { subject, clock } = item;
  const me = session?.me.userId;
  const open = item.status !== 'CLOSED';
  const done = () => void reload();

  return (
    <Stack data-testid="case-detail">
      <Group>
        <Text fw={700} size="lg" data-testid="case-reference">
          {item.reference}
        </Text>
        <CaseStatusText status={item.status} />
        <Badge variant="outline">{subject.kind}</Badge>
        <Text size="sm" data-testid="case-assignee">
          {item.assigneeId ? (item.assigneeId === me ? 'assigned to you' : `assigned to ${shortId(item.assigneeId)}`) : 'nobody assigned'}
        </Text>
      </Group>
      {open && (
        <Group>
          {item.assigneeId !== me && (
            <ActionDialog
              label="Assign to me"
              title="Take this case"
              closed={done}
              submit={() => ok(api.POST('/api/v1/compliance/cases/{caseId}/assignment', { params: path, body: {} }))}
            >
              <Text size="sm">You become the officer who works and decides this case.</Text>
            </ActionDialog>
          )}
          <AssignToOther caseId={item.id} done={done} />
          <AddNote caseId={item.id} done={done} />
          <AddEvidence item={item} done={done} />
        </Group>
      )}
      {open && item.assigneeId === me && item.status === 'IN_REVIEW' && <Decisions item={item} done={done} />}
      <DecisionState item={item} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Part title="Subject" testId="case-subject">
          <FactsTable
            facts={[
              ['Name', subject.name ?? '—'],
              ['Phone', subject.phone ?? '—'],
              ['Kind', subject.kind],
              ['Accounts', subject.accountIds.join(', ') || '—'],
            ]}
          />
          <Link to={`/people/${subject.userId}`} testId="case-subject-link">
            Open {subject.name ?? 'the person'}&apos;s 360 view
          </Link>
        </Part>
        <Part title="Clock" testId="case-clock">
          <FactsTable
            facts={[
              ['Opened', when(clock.openedAt)],
              ['First alert', when(clock.firstAlertAt)],
              ['Last alert', when(clock.lastAlertAt)],
              ['First assigned', when(clock.firstAssignedAt) || '—'],
              ['Decided', when(clock.decidedAt) || '—'],
              ['Time to assignment', duration(clock.timeToAssignmentSeconds)],
              ['Time to decision', duration(clock.timeToDecisionSeconds)],
              ['Age', duration(clock.ageSeconds)],
            ]}
          />
        </Part>
      </SimpleGrid>
      <Part title="Alerts">
        {item.alertCount > item.alerts.length && (
          <Link to={`/compliance/alerts?caseId=${item.id}`}>All {item.alertCount} alerts of the case</Link>
        )}
        <SimpleTable
          rows={item.alerts}
          caption={
            item.alertCount > item.alerts.length
              ? `The first ${item.alerts.length} of the ${item.alertCount} alerts of the case`
              : `The ${item.alertCount} alerts of the case`
          }
          testId="case-alerts"
          columns={[
            { label: 'Raised', cell: (a) => when(a.raisedAt) },
            { label: 'Rule', cell: (a) => ruleLabel(a.rule) },
            { label: 'Why', cell: (a) => a.reason },
            { label: 'Rules version', cell: (a) => a.configVersion },
          ]}
        />
      </Part>
      <Part title="Operations">
        <CaseOperations item={item} />
      </Part>
      <Part title="Evidence">
        <SimpleTable
          rows={item.evidence}
          caption="Evidence attached by officers"
          testId="case-evidence"
          columns={[
            { label: 'Added', cell: (e) => `${when(e.addedAt)} by ${shortId(e.addedBy)}` },
            { label: 'Kind', cell: (e) => (e.kind === 'TRANSACTION' ? 'Operation' : 'Person 360 view') },
            {
              label: 'What',
              cell: (e) =>
                e.kind === 'TRANSACTION' && e.reference ? (
                  <Link to={`/payments/${encodeURIComponent(e.reference)}`}>{e.reference}</Link>
                ) : e.userId ? (
                  <>
                    <Link to={`/people/${e.userId}`}>{shortId(e.userId)}</Link>
                    {e.snapshotTakenAt ? ` (as read ${when(e.snapshotTakenAt)})` : ''}
                  </>
                ) : (
                  '—'
                ),
            },
            { label: 'Note', cell: (e) => e.note ?? '' },
          ]}
        />
      </Part>
      <Part title="History">
        <SimpleTable
          rows={item.history}
          caption="Everything that happened to the case, oldest first (append-only)"
          testId="case-history"
          columns={[
            { label: 'When', cell: (h) => when(h.at) },
            { label: 'What', cell: (h) => EVENT_LABELS[h.kind] ?? h.kind },
            { label: 'Who', cell: (h) => (h.actorId ? shortId(h.actorId) : 'monitoring') },
            { label: 'Details', cell: (h) => detailsText(h.details) },
          ]}
        />
      </Part>
      {!can(session, 'compliance.reports') && open && (
        <Text size="sm" c="dimmed">
          A suspicion report needs the permission compliance.reports.
        </Text>
      )}
    </Stack>
  );
}

type Operation = Detail['operations'][number];

/** The case's operations: the first 100 come with the case, "Load more" pages through the rest. */
function CaseOperations({ item }: { item: Detail }) {
  const [more, setMore] = useState<{ items: Operation[]; cursor: string | null }>({ items: [], cursor: item.operationsNextCursor });
  const [error, setError] = useState<unknown>();
  const rows = item.operations.concat(more.items);
  async function loadMore() {
    if (!more.cursor) return;
    try {
      const page = await ok(
        api.GET('/api/v1/compliance/cases/{caseId}/operations', { params: { path: { caseId: item.id }, query: { cursor: more.cursor } } }),
      );
      setMore((m) => ({ items: m.items.concat(page.items), cursor: page.nextCursor }));
    } catch (failure) {
      setError(failure);
    }
  }
  return (
    <>
      <SimpleTable
        rows={rows}
        caption={`${rows.length} of the ${item.operationsTotal} operations behind the alerts or attached as evidence, oldest first`}
        testId="case-operations"
        columns={[
          { label: 'When', cell: (o) => when(o.occurredAt) },
          {
            label: 'Reference',
            cell: (o) => <Link to={`/payments/${encodeURIComponent(o.reference)}`}>{o.reference}</Link>,
          },
          { label: 'Type', cell: (o) => o.type },
          { label: 'Amount', cell: (o) => money(o.amount, o.currency) },
          { label: 'From account', cell: (o) => shortId(o.sourceAccountId) },
          { label: 'To account', cell: (o) => shortId(o.destinationAccountId) },
        ]}
      />
      <ErrorNotice error={error} />
      {more.cursor && (
        <Group>
          <Button variant="default" size="xs" onClick={() => void loadMore()}>
            Load more operations
          </Button>
        </Group>
      )}
    </>
  );
}

function AssignToOther({ caseId, done }: { caseId: string; done: () => void }) {
  const [assigneeId, setAssigneeId] = useState('');
  return (
    <ActionDialog
      label="Assign to another officer…"
      title="Give this case to another officer"
      closed={done}
      submit={() =>
        ok(
          api.POST('/api/v1/compliance/cases/{caseId}/assignment', {
            params: { path: { caseId } },
            body: { assigneeId: assigneeId.trim() },
          }),
        )
      }
    >
      <TextInput
        label="Officer's user id"
        description="A staff member holding compliance.monitoring (their user id is on their 360 view)"
        required
        value={assigneeId}
        onChange={(e) => setAssigneeId(e.currentTarget.value)}
      />
    </ActionDialog>
  );
}

function AddNote({ caseId, done }: { caseId: string; done: () => void }) {
  const [text, setText] = useState('');
  return (
    <ActionDialog
      label="Add a note…"
      title="Add a note to the case"
      closed={done}
      submit={() => ok(api.POST('/api/v1/compliance/cases/{caseId}/notes', { params: { path: { caseId } }, body: { text: text.trim() } }))}
    >
      <Textarea
        label="Note"
        required
        description="Kept in the history with your name; never edited"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        autosize
        minRows={3}
      />
    </ActionDialog>
  );
}

function AddEvidence({ item, done }: { item: Detail; done: () => void }) {
  const [kind, setKind] = useState<'TRANSACTION' | 'PERSON_360'>('TRANSACTION');
  const [reference, setReference] = useState('');
  const [userId, setUserId] = useState('');
  const [note, setNote] = useState('');
  return (
    <ActionDialog
      label="Attach evidence…"
      title="Attach evidence to the case"
      closed={done}
      submit={() =>
        ok(
          api.POST('/api/v1/compliance/cases/{caseId}/evidence', {
            params: { path: { caseId: item.id } },
            body:
              kind === 'TRANSACTION'
                ? { kind, reference: reference.trim(), note: note.trim() || undefined }
                : { kind, userId: userId.trim() || undefined, note: note.trim() || undefined },
          }),
        )
      }
    >
      <SegmentedControl
        aria-label="Kind of evidence"
        value={kind}
        onChange={(v) => setKind(v as 'TRANSACTION' | 'PERSON_360')}
        data={[
          { value: 'TRANSACTION', label: 'An operation' },
          { value: 'PERSON_360', label: 'A person’s 360 view' },
        ]}
      />
      {kind === 'TRANSACTION' ? (
        <TextInput
          label="Transaction reference"
          description="The ledger reference of the operation (MMPTX…), as the payment story shows it"
          required
          value={reference}
          onChange={(e) => setReference(e.currentTarget.value)}
        />
      ) : (
        <TextInput
          label="User id"
          description={`Empty: the subject (${item.subject.name ?? item.subject.userId}); the view is kept as read now`}
          value={userId}
          onChange={(e) => setUserId(e.currentTarget.value)}
        />
      )}
      <Textarea label="Note (optional)" value={note} onChange={(e) => setNote(e.currentTarget.value)} />
    </ActionDialog>
  );
}

/** The assigned officer's three decisions. */
function Decisions({ item, done }: { item: Detail; done: () => void }) {
  const session = useSession();
  const path = { path: { caseId: item.id } };
  const [note, setNote] = useState('');
  const [grounds, setGrounds] = useState('');
  const [narrative, setNarrative] = useState('');
  const noteField = (
    <Textarea
      label="Note"
      required
      description="Why; kept with the decision"
      value={note}
      onChange={(e) => setNote(e.currentTarget.value)}
      autosize
      minRows={2}
    />
  );
  return (
    <Group>
      <Text size="sm" fw={600}>
        Decide:
      </Text>
      <ActionDialog
        label="No action…"
        title="Close the case with no action"
        closed={done}
        submit={() =>
          ok(
            api.POST('/api/v1/compliance/cases/{caseId}/decision', {
              params: path,
              body: { decision: 'NO_ACTION', note: note.trim(), expectedVersion: item.version },
            }),
          )
        }
      >
        {noteField}
      </ActionDialog>
      <ActionDialog
        label="Freeze the subject…"
        title="Freeze the subject"
        color="red"
        closed={done}
        submit={async () => {
          const answer = await ok(
            api.POST('/api/v1/compliance/cases/{caseId}/decision', {
              params: path,
              body: { decision: 'FREEZE', note: note.trim(), expectedVersion: item.version },
            }),
          );
          // pending: the request another officer approves (the dialog links to it); one-person: the closed case
          return answer.approvalRequest ?? answer;
        }}
      >
        <Text size="sm">Another officer must approve the freeze; until then the case waits and the person can still pay.</Text>
        {noteField}
      </ActionDialog>
      {can(session, 'compliance.reports') && (
        <ActionDialog
          label="Suspicion report…"
          title="Make a suspicion report"
          color="orange"
          closed={done}
          answer={(report) => (
            <Text size="sm">
              Report{' '}
              <Link to={`/compliance/reports/${(report as Report).id}`} testId="suspicion-report-link">
                {(report as Report).reference}
              </Link>{' '}
              made; the case is closed. File it with the financial intelligence unit, then confirm it in writing within 48 hours.
            </Text>
          )}
          submit={() =>
            ok(
              api.POST('/api/v1/compliance/reports/suspicion', {
                body: {
                  caseId: item.id,
                  expectedVersion: item.version,
                  grounds: grounds
                    .split('\n')
                    .map((g) => g.trim())
                    .filter(Boolean),
                  narrative: narrative.trim(),
                },
              }),
            )
          }
        >
          <Text size="sm">
            Built from the case&apos;s facts: the subject, every operation with both parties, the alerts and your words. It closes the case.
          </Text>
          <Textarea
            label="Grounds for suspicion"
            description="One per line (3 to 500 characters each, at most 20)"
            required
            value={grounds}
            onChange={(e) => setGrounds(e.currentTarget.value)}
            autosize
            minRows={2}
          />
          <Textarea
            label="Narrative"
            description="What happened and why it is suspicious (at least 20 characters)"
            required
            value={narrative}
            onChange={(e) => setNarrative(e.currentTarget.value)}
            autosize
            minRows={4}
          />
        </ActionDialog>
      )}
    </Group>
  );
}

/** A decision waiting for approval, or the decision taken, with its request or its report. */
function DecisionState({ item }: { item: Detail }) {
  if (item.status === 'DECISION_PENDING')
    return (
      <Alert color="yellow" title="Freeze waiting for approval" data-testid="case-decision">
        <Text size="sm">
          Another officer must approve it.{' '}
          {item.pendingRequestId && (
            <Link to={`/approvals/${item.pendingRequestId}`} testId="case-request-link">
              Open the request
            </Link>
          )}
        </Text>
      </Alert>
    );
  if (!item.decision) return null;
  return (
    <Alert color="gray" title={`Decided: ${DECISION_LABELS[item.decision]}`} data-testid="case-decision">
      <Text size="sm">
        {item.decidedBy ? `By ${shortId(item.decidedBy)}` : ''}
        {item.clock.decidedAt ? `, ${when(item.clock.decidedAt)}` : ''}
        {item.decisionNote ? `: ${item.decisionNote}` : ''}{' '}
        {item.decisionReportId && (
          <Link to={`/compliance/reports/${item.decisionReportId}`} testId="case-report-link">
            Open the suspicion report
          </Link>
        )}
        {item.decisionRequestId && (
          <Link to={`/approvals/${item.decisionRequestId}`} testId="case-request-link">
            Open the freeze request
          </Link>
        )}
      </Text>
    </Alert>
  );
}
