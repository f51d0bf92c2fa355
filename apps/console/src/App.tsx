import { Title } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { match, useRoute } from './router';
import { SCREENS } from './screens';
import { Shell } from './shell/Shell';
import { can, useSession } from './session/session';
import { SignIn } from './session/SignIn';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { ErrorNotice } from './ui/ErrorNotice';

export function App() {
  const session = useSession();
  const route = useRoute();
  const allowed = SCREENS.filter((s) => can(session, s.permission));
  let found: { screen: (typeof SCREENS)[number]; params: Record<string, string> } | undefined;
  for (const screen of SCREENS) {
    const params = match(screen.path, route.path);
    if (params) {
      found = { screen, params };
      break;
    }
  }
  // After a change of screen, focus moves to the content (as a page load would put a screen reader there).
  const firstPath = useRef(route.path);
  useEffect(() => {
    if (route.path !== firstPath.current) document.getElementById('main')?.focus();
    firstPath.current = '';
  }, [route.path]);
  useEffect(() => {
    document.title = found ? `${found.screen.label} · Operators' console` : "Operators' console";
  }, [found]);

  if (!session) return <SignIn />;
  let body;
  if (!found) body = <ErrorNotice error={new Error(`No screen at ${route.path}`)} title="Not found" />;
  else if (!allowed.includes(found.screen))
    body = (
      <ErrorNotice
        error={new Error(`Your role (${session.me.role}) lacks the permission ${found.screen.permission}`)}
        title="Not allowed"
      />
    );
  else {
    const Screen = found.screen.component;
    body = (
      <ErrorBoundary screen={found.screen.path}>
        <Title order={1} size="h2" mb="md">
          {found.screen.label}
        </Title>
        <Screen params={found.params} query={route.query} />
      </ErrorBoundary>
    );
  }
  return (
    <Shell session={session} screens={allowed} current={found?.screen}>
      {body}
    </Shell>
  );
}
