import { SegmentedControl, Stack, Select, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { ActionDialog } from '../../ui/ActionForm';
import { Link } from '../../ui/Link';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { ALERT_STATUS_COLORS, ALERT_STATUS_LABELS, type ReconAlert, str } from './labels';

/** The alert's state, and who took its last step. */
export function AlertStatus({ alert }: { alert: ReconAlert }) {
  const last = alert.decisions[alert.decisions.length - 1];
  return (
    <Stack gap={0}>
      <Text size="sm" fw={600} c={`${ALERT_STATUS_COLORS[alert.status] ?? 'gray'}.8`} data-testid={`recon-alert-status-${alert.id}`}>
        {ALERT_STATUS_LABELS[alert.status] ?? alert.status}
      </Text>
      {last && alert.status === 'RESOLVED' && (
        <Text size="xs">
          {last.decision === 'CORRECTED' ? `by correction ${str(last.correctionId).slice(0, 8)}…` : 'accepted'}
          {str(last.note) ? `: ${str(last.note)}` : ''}
        </Text>
      )}
    </Stack>
  );
}

/**
 * The next step of a reconciliation alert: an open alert is acknowledged (someone is on it); an
 * acknowledged one is resolved either by a ledger correction that went through four eyes (submitted
 * in Corrections and float, approved by another person, then named here) or accepted with a note.
 */
export function AlertActions({ alert, done }: { alert: ReconAlert; done: () => void }) {
  const path = { path: { alertId: alert.id } };
  const [note, setNote] = useState('');
  if (alert.status === 'OPEN')
    return (
      <ActionDialog
        label="Acknowledge…"
        title="Acknowledge the alert"
        closed={done}
        submit={() =>
          ok(
            api.POST('/api/v1/compliance/reconciliation/alerts/{alertId}/acknowledge', {
              params: path,
              body: { reason: note.trim() || undefined },
            }),
          )
        }
      >
        <Text size="sm">Says that you are looking into it; resolving it comes next.</Text>
        <Textarea label="Note (optional)" value={note} onChange={(e) => setNote(e.currentTarget.value)} />
      </ActionDialog>
    );
  if (alert.status === 'ACKNOWLEDGED') return <ResolveAlert alert={alert} done={done} />;
  return null;
}

function ResolveAlert({ alert, done }: { alert: ReconAlert; done: () => void }) {
  const [how, setHow] = useState<'CORRECTION' | 'ACCEPTED'>('CORRECTION');
  const [correctionId, setCorrectionId] = useState('');
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      label="Resolve…"
      title="Resolve the alert"
      closed={done}
      submit={() =>
        ok(
          api.POST('/api/v1/compliance/reconciliation/alerts/{alertId}/resolve', {
            params: { path: { alertId: alert.id } },
            body: { resolution: how, correctionId: how === 'CORRECTION' ? correctionId.trim() : undefined, reason: reason.trim() },
          }),
        )
      }
    >
      <SegmentedControl
        aria-label="How the alert is resolved"
        value={how}
        onChange={(v) => setHow(v as 'CORRECTION' | 'ACCEPTED')}
        data={[
          { value: 'CORRECTION', label: 'By a correction' },
          { value: 'ACCEPTED', label: 'Accept with a note' },
        ]}
      />
      {how === 'CORRECTION' ? (
        <>
          <Text size="sm">
            The ledger correction must be carried out, approved by someone other than the person who asked for it, and in {alert.currency}.
            Submit one in <Link to="/corrections">Corrections and float</Link> (another person approves it in Approvals), then pick it here.
          </Text>
          <CorrectionPicker currency={alert.currency} value={correctionId} onChange={setCorrectionId} />
        </>
      ) : (
        <Text size="sm">Say why the difference is explained (e.g. the bank booked it on the next business day).</Text>
      )}
      <Textarea
        label="Reason"
        required
        description="3 to 1000 characters, kept with the decision"
        value={reason}
        onChange={(e) => setReason(e.currentTarget.value)}
      />
    </ActionDialog>
  );
}

/** Carried-out corrections in the alert's currency to pick from, or an id typed by hand. */
function CorrectionPicker({ currency, value, onChange }: { currency: string; value: string; onChange: (id: string) => void }) {
  const { data } = useLoad(
    () => ok(api.GET('/api/backoffice/ledger/corrections', { params: { query: { status: 'EXECUTED', limit: 100 } } })),
    [],
  );
  const options = (data ?? [])
    .filter((c) => c.currency === currency)
    .map((c) => ({
      value: c.id,
      label: `${c.kind === 'REVERSAL' ? 'Reversal' : `${c.direction} ${money(c.amount, c.currency)}`} — ${c.reason.slice(0, 60)} (${when(c.maker.submittedAt)})`,
    }));
  return (
    <>
      <Select
        label="Carried-out correction"
        placeholder={options.length ? 'Pick one' : 'None carried out yet'}
        data={options}
        value={options.some((o) => o.value === value) ? value : null}
        onChange={(v) => onChange(v ?? '')}
        searchable
      />
      <TextInput
        label="Correction id"
        description="Filled by the choice above, or typed"
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
    </>
  );
}
