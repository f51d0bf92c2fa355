import { AppShell, Burger, Button, Group, Menu, NavLink, ScrollArea, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { BASE, navigate } from '../router';
import type { Screen } from '../screens/registry';
import { type Me, type Session, signOut, signOutEverywhere } from '../session/session';

/**
 * The frame of every screen: the navigation lists only the screens the operator's permissions reach,
 * a skip link jumps past it, and the layout fits a 1366×768 screen (a 220 px navigation, the rest for content).
 */
export function Shell(props: { session: Session; screens: Screen[]; current?: Screen; children: ReactNode }) {
  const { me } = props.session;
  // below 768 px the navigation folds behind a menu button
  const [navOpen, nav] = useDisclosure(false);
  return (
    <AppShell header={{ height: 52 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !navOpen } }} padding="md">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="xs">
            <Burger opened={navOpen} onClick={nav.toggle} hiddenFrom="sm" size="sm" aria-label="Show the screens" />
            <Title order={2} size="h4">
              Operators' console
            </Title>
          </Group>
          <Group gap="sm">
            <Text size="sm" data-testid="signed-in-as" title={me.userId}>
              {signedInAs(me)} · {me.role}
            </Text>
            <Menu position="bottom-end">
              <Menu.Target>
                <Button variant="default" size="xs">
                  Sign out…
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => void signOut()}>Sign out of this session</Menu.Item>
                <Menu.Item onClick={() => void signOutEverywhere()}>Sign out everywhere</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Screens">
        <ScrollArea>
          {props.screens
            .filter((s) => s.nav)
            .map((s) => (
              <NavLink
                key={s.path}
                href={BASE + s.path}
                label={s.label}
                active={props.current?.path === s.path}
                aria-current={props.current?.path === s.path ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  nav.close();
                  navigate(s.path);
                }}
              />
            ))}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        {props.children}
      </AppShell.Main>
    </AppShell>
  );
}

/**
 * Who the header names: a staff member by name, a customer by phone. The bootstrap administrator
 * has neither a staff record nor a customer profile, so it is named by what it is rather than by its
 * user id (which stays on the title, for support).
 */
function signedInAs(me: Me): string {
  if (me.staff) return `${me.staff.firstName} ${me.staff.lastName}`;
  if (me.customer) return me.customer.phone;
  return me.role === 'ADMIN' ? 'Bootstrap administrator' : me.userId;
}
