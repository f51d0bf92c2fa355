import { Badge, Button, Group, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components, paths } from '../../api/schema';
import { ActionDialog } from '../../ui/ActionForm';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { SimpleTable } from '../../ui/SimpleTable';
import { when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';
import { type MonitoringAlert, RULE_LABELS, type RuleCode, ruleLabel, shortId } from './labels';

type Document = components['schemas']['MonitoringDocumentDto'];
type Filters = Omit<NonNullable<paths['/api/v1/compliance/alerts']['get']['parameters']['query']>, 'cursor' | 'limit'>;

const COLUMNS: Column<MonitoringAlert>[] = [
  { label: 'Raised', text: (a) => when(a.raisedAt), csv: (a) => a.raisedAt },
  { label: 'Rule', text: (a) => ruleLabel(a.rule), csv: (a) => a.rule },
  {
    label: 'Subject',
    text: (a) => `${a.subjectKind} ${a.subjectUserId}`,
    render: (a) => (
      <Link to={`/people/${a.subjectUserId}`}>
        {a.subjectKind.toLowerCase()} {shortId(a.subjectUserId)}
      </Link>
    ),
  },
  { label: 'Why', text: (a) => a.reason },
  { label: 'Operations', text: (a) => String(a.transactionReferences.length) },
  {
    label: 'Case',
    text: (a) => a.caseReference,
    render: (a) => (
      <Link to={`/compliance/cases/${a.caseId}`} testId={`alert-case-${a.id}`}>
        {a.caseReference}
      </Link>
    ),
  },
  { label: 'Rules version', text: (a) => String(a.configVersion) },
];

/**
 * Monitoring alerts (docs/monitoring.md): each is a rule that fired on the operations of one person,
 * with why, and the case that gathers the alerts about that person. Filters by rule, person and case;
 * the rules in force and the rules that failed are below.
 */
export function Alerts({ query }: ScreenProps) {
  const [form, setForm] = useState({
    rule: query.get('rule') ?? '',
    subjectUserId: query.get('subjectUserId') ?? '',
    caseId: query.get('caseId') ?? '',
  });
  const [filters, setFilters] = useState<Filters>(() => ({
    rule: (form.rule || undefined) as RuleCode | undefined,
    subjectUserId: form.subjectUserId || undefined,
    caseId: form.caseId || undefined,
  }));
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setFilters({
      rule: (form.rule || undefined) as RuleCode | undefined,
      subjectUserId: form.subjectUserId.trim() || undefined,
      caseId: form.caseId.trim() || undefined,
    });
  }

  const fetchPage = useCallback(
    (cursor: string | null) =>
      ok(api.GET('/api/v1/compliance/alerts', { params: { query: { ...filters, cursor: cursor ?? undefined, limit: 50 } } })),
    [filters],
  );

  return (
    <Stack>
      <form onSubmit={submit} role="search" aria-label="Filter alerts">
        <Group align="end">
          <Select
            label="Rule"
            value={form.rule}
            onChange={(v) => set({ rule: v ?? '' })}
            data={[{ value: '', label: 'Any rule' }, ...Object.entries(RULE_LABELS).map(([value, label]) => ({ value, label }))]}
            allowDeselect={false}
            w={300}
          />
          <TextInput
            label="Subject (user id)"
            value={form.subjectUserId}
            onChange={(e) => set({ subjectUserId: e.currentTarget.value })}
            w={320}
          />
          <TextInput label="Case id" value={form.caseId} onChange={(e) => set({ caseId: e.currentTarget.value })} w={320} />
          <Button type="submit" variant="default">
            Filter
          </Button>
        </Group>
      </form>
      <Text size="sm" c="dimmed">
        An alert has no state of its own: it is worked in its case (open the case, or the <Link to="/compliance/cases">list of cases</Link>
        ).
      </Text>
      <ListView
        name="monitoring-alerts"
        caption="Monitoring alerts, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(a) => a.id}
        empty="No alert matches."
      />
      <RulesInForce />
      <RuleFailures />
    </Stack>
  );
}

/**
 * The version of the rules in force, which rules are on, and a new version proposed: compliance
 * officers (and administrators) propose one, another compliance officer approves it in the inbox
 * (CONFIG_CHANGE, docs/monitoring.md); alerts raised after it name the new version.
 */
function RulesInForce() {
  const { data, error, reload } = useLoad(() => ok(api.GET('/api/v1/compliance/monitoring/rules')), []);
  return (
    <Stack gap="xs" component="section" aria-labelledby="rules-in-force">
      <Title order={2} size="h4" id="rules-in-force">
        Rules in force
      </Title>
      <ErrorNotice error={error} />
      {data && (
        <>
          <Text size="sm" data-testid="rules-version">
            Version {data.version}, {when(data.createdAt)} by {data.createdBy}: {data.reason}.
          </Text>
          <Group gap="xs">
            {data.rules.map((r) => (
              <Badge key={r.code} color={r.enabled ? 'green' : 'gray'} variant="light" title={r.code}>
                {ruleLabel(r.code)}: {r.enabled ? 'on' : 'off'}
              </Badge>
            ))}
          </Group>
          <Group>
            <ProposeRules document={data.document} version={data.version} closed={() => void reload()} />
          </Group>
        </>
      )}
    </Stack>
  );
}

function ProposeRules(props: { document: unknown; version: number; closed: () => void }) {
  const [text, setText] = useState(() => JSON.stringify(props.document, null, 2));
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      label="Propose new thresholds…"
      title="Propose a new version of the monitoring rules"
      closed={props.closed}
      submit={async () => {
        let document: Document;
        try {
          document = JSON.parse(text) as Document;
        } catch (failure) {
          throw new Error(`The rules are not valid JSON: ${(failure as Error).message}`, { cause: failure });
        }
        return ok(api.POST('/api/config/monitoring/versions', { body: { document, baseVersion: props.version, reason: reason.trim() } }));
      }}
    >
      <Text size="sm">
        The whole section, edited as JSON (amounts are integers in the smallest unit, windows in seconds; each rule is described in
        docs/monitoring.md). Another compliance officer must approve it before it applies.
      </Text>
      <Textarea
        label="Rules"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        autosize
        minRows={8}
        maxRows={16}
        styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
      />
      <Textarea label="Reason" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
    </ActionDialog>
  );
}

/** Rules that threw while judging an operation: nothing was blocked, but the rule did not judge it. */
function RuleFailures() {
  const { data, error } = useLoad(() => ok(api.GET('/api/v1/compliance/monitoring/failures', { params: { query: { limit: 20 } } })), []);
  return (
    <Stack gap="xs" component="section" aria-labelledby="rule-failures">
      <Title order={2} size="h4" id="rule-failures">
        Rules that failed
      </Title>
      <ErrorNotice error={error} />
      <SimpleTable
        rows={data?.items ?? []}
        caption="The last 20 rule failures, newest first (the payment went through; the rule did not judge it)"
        columns={[
          { label: 'When', cell: (f) => when(f.at) },
          { label: 'Rule', cell: (f) => ruleLabel(f.rule) },
          { label: 'Rules version', cell: (f) => f.configVersion },
          { label: 'Error', cell: (f) => f.error },
          { label: 'Event', cell: (f) => f.eventId },
        ]}
      />
    </Stack>
  );
}
