import { Anchor, Stack, Tabs } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { ChangeForm } from './ChangeForm';
import { type Section, SECTION_LABELS, SECTIONS, type VersionSummary } from './labels';
import { VersionDiff } from './VersionDiff';

/** The history's columns; "Changes" shows what a version changed from the one before it. */
function columns(changes: (version: number) => void): Column<VersionSummary>[] {
  return [
    { label: 'Version', text: (v) => String(v.version) },
    { label: 'Changed by', text: (v) => v.createdBy },
    { label: 'When', text: (v) => when(v.createdAt) },
    { label: 'Reason', text: (v) => v.reason },
    {
      label: 'Changes',
      text: (v) => (v.version > 1 ? `from version ${v.version - 1}` : 'first version'),
      render: (v) =>
        v.version > 1 ? (
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={() => changes(v.version)}
            aria-label={`Changes made by version ${v.version}`}
          >
            Changes from {v.version - 1}
          </Anchor>
        ) : (
          'first version'
        ),
    },
  ];
}

/** The versioned configuration: each section's history (who, when, why), the changes between two versions, and a new version proposed for approval. */
export function ConfigScreen({ query }: ScreenProps) {
  const initial = query.get('section');
  const [section, setSection] = useState<Section>(SECTIONS.includes(initial as Section) ? (initial as Section) : 'pricing');
  return (
    <Tabs value={section} onChange={(value) => value && setSection(value as Section)} keepMounted={false}>
      <Tabs.List aria-label="Configuration sections">
        {SECTIONS.map((s) => (
          <Tabs.Tab key={s} value={s}>
            {SECTION_LABELS[s]}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {SECTIONS.map((s) => (
        <Tabs.Panel key={s} value={s} pt="md">
          <SectionPanel section={s} />
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}

function SectionPanel({ section }: { section: Section }) {
  const [latest, setLatest] = useState<number>();
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  const [request, setRequest] = useState<{ from: number; to: number }>();
  const shown = useMemo(() => columns((version) => setRequest({ from: version - 1, to: version })), []);

  useEffect(() => {
    ok(api.GET('/api/config/{section}/versions', { params: { path: { section }, query: { limit: 1 } } })).then(
      (history) => setLatest(history.versions[0]?.version),
      setError,
    );
  }, [section, generation]);

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const history = await ok(
        api.GET('/api/config/{section}/versions', {
          params: { path: { section }, query: { limit: 20, before: cursor ? Number(cursor) : undefined } },
        }),
      );
      return { items: history.versions, nextCursor: history.nextBefore === null ? null : String(history.nextBefore) };
    },
    // `generation` too: a version applied at once reloads the history
    [section, generation],
  );

  return (
    <Stack gap="lg">
      <ErrorNotice error={error} />
      <ListView
        name={`config-${section}-versions`}
        caption={`${SECTION_LABELS[section]}: versions, newest first`}
        columns={shown}
        fetchPage={fetchPage}
        rowKey={(v) => String(v.version)}
        empty="No version."
      />
      <VersionDiff section={section} latest={latest} request={request} />
      <ChangeForm section={section} latest={latest} onChanged={() => setGeneration((g) => g + 1)} />
    </Stack>
  );
}
