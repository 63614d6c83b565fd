import { AppShell, Badge, Burger, Group, Menu, NavLink, Select, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { NavLink as RouterLink, Outlet, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client.ts';
import { messageOf } from '../api/field-errors.ts';
import { GlobalSearch } from '../components/GlobalSearch.tsx';
import { NAVIGATION } from './screens.tsx';
import { SESSION_KEY, useAdoptSession, useCan, useSession, type ConsoleSession } from './session.tsx';

export function Layout() {
  const [opened, { toggle, close }] = useDisclosure();
  const { data: session } = useSession();
  const can = useCan();
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const adopt = useAdoptSession();
  if (!session) return null;

  const signOut = async (everywhere: boolean) => {
    try {
      await api('DELETE', everywhere ? '/console/v1/sessions' : '/console/v1/session');
    } finally {
      client.setQueryData(SESSION_KEY, null);
      navigate('/sign-in');
    }
  };
  const switchProject = async (projectId: string | null) => {
    if (!projectId || projectId === session.project.id) return;
    try {
      adopt(await api<ConsoleSession>('PUT', '/console/v1/session', { project_id: projectId }));
      navigate('/');
    } catch (error) {
      notifications.show({ color: 'red', title: 'Could not switch project', message: messageOf(error) });
    }
  };

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            {/* With a project switcher, a phone's header keeps its room for the switcher and the account menu. */}
            <Text fw={700} visibleFrom={session.projects.length > 1 ? 'xs' : undefined}>Punchcard</Text>
            {session.projects.length > 1 ? (
              <Select
                aria-label="Project"
                size="xs"
                w={{ base: 150, xs: 180 }}
                value={session.project.id}
                data={session.projects.map((p) => ({ value: p.id, label: p.name }))}
                onChange={(value) => void switchProject(value)}
                allowDeselect={false}
              />
            ) : (
              <Text size="sm" c="dimmed" visibleFrom="xs">
                {session.project.name}
              </Text>
            )}
          </Group>
          <Group gap="xs" wrap="nowrap">
            <GlobalSearch />
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <UnstyledButton aria-label="Account">
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" visibleFrom="xs" truncate maw={200}>
                      {session.user.email}
                    </Text>
                    <Badge variant="light" data-testid="role">{session.role}</Badge>
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>{session.user.email}</Menu.Label>
                <Menu.Item component={RouterLink} to="/account" onClick={close}>
                  Your account and password
                </Menu.Item>
                <Menu.Item onClick={() => void signOut(false)}>Sign out</Menu.Item>
                <Menu.Item color="red" onClick={() => void signOut(true)}>
                  Sign out everywhere
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Sections">
        {NAVIGATION.filter((item) => can('GET', item.route)).map((item) => (
          <NavLink
            key={item.to}
            component={RouterLink}
            to={item.to}
            label={item.label}
            active={item.to === '/' ? location.pathname === '/' : location.pathname.startsWith(item.to)}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
