import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import type { components } from '../api/schema';
import { can, useSession } from '../session/session';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Link } from '../ui/Link';
import { IntegrityStatus } from './IntegrityChecks';

type Check = components['schemas']['IntegrityCheckRecordView'];

/** What needs an operator today, each card from the route that answers it (and only where the role may read it). */
export function Home() {
  const session = useSession();
  const [integrity, setIntegrity] = useState<{ check?: Check; error?: unknown }>();

  useEffect(() => {
    if (!can(session, 'compliance.integrity')) return;
    ok(api.GET('/api/v1/compliance/integrity-checks', { params: { query: { limit: 1 } } })).then(
      (checks) => setIntegrity({ check: checks[0] }),
      (error) => setIntegrity({ error }),
    );
  }, [session]);

  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
      {can(session, 'compliance.integrity') && (
        <Card withBorder component="section" aria-labelledby="home-integrity">
          <Title order={2} size="h4" id="home-integrity">
            Ledger integrity
          </Title>
          <ErrorNotice error={integrity?.error} />
          <Text component="div" my="xs">
            <IntegrityStatus check={integrity?.check} />
          </Text>
          <Link to="/integrity">All checks</Link>
        </Card>
      )}
    </SimpleGrid>
  );
}
