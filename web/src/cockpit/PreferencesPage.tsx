import { Alert, Button, Card, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { cockpitApi, type Preferences } from './api.ts';
import { LinkError, Loading, Shell } from './Shell.tsx';

// The preference center: the project's consents (grouped as the project groups them), each switch an
// opt-in or opt-out saved at once through the consents service (an activity and a webhook per change).

type Consent = Preferences['consents'][number];

function ConsentSwitch({ consent, color, onChange, busy }: { consent: Consent; color: string; onChange: (granted: boolean) => void; busy: boolean }) {
  return (
    <Switch
      size="md"
      color={color}
      checked={consent.granted}
      disabled={busy}
      onChange={(event) => onChange(event.currentTarget.checked)}
      label={consent.name}
      description={consent.description ?? undefined}
      data-consent={consent.name}
    />
  );
}

export function PreferencesPage() {
  const queryClient = useQueryClient();
  const prefs = useQuery({ queryKey: ['preferences'], queryFn: () => cockpitApi<Preferences>('GET', '/preferences') });
  const save = useMutation({
    mutationFn: (answers: Record<string, boolean>) => cockpitApi<Preferences>('PUT', '/preferences', answers),
    onSuccess: (fresh) => queryClient.setQueryData(['preferences'], fresh),
  });
  if (prefs.isPending) return <Loading />;
  if (prefs.isError) return <LinkError error={prefs.error} />;
  const { brand, groups, consents } = prefs.data;
  const byId = new Map(consents.map((c) => [c.id, c]));
  const grouped = new Set(groups.flatMap((g) => g.consents));
  const loose = consents.filter((c) => !grouped.has(c.id));
  const change = (id: string, granted: boolean) => save.mutate({ [id]: granted });
  const anyGranted = consents.some((c) => c.granted);
  const list = (items: Consent[]) =>
    items.map((c) => <ConsentSwitch key={c.id} consent={c} color={brand.primary_color} busy={save.isPending} onChange={(granted) => change(c.id, granted)} />);

  return (
    <Shell brand={brand} page="preferences">
      <Stack gap="lg">
        <Title order={2} size="h3">
          Your preferences
        </Title>
        <Text c="dimmed">{brand.permission_reminder ?? `Choose what ${brand.name} may send you. Changes are saved at once.`}</Text>
        {consents.length === 0 && <Text c="dimmed">{brand.name} asks for no permissions.</Text>}
        {groups.map((g) => (
          <Card key={g.id} withBorder padding="md">
            <Stack gap="sm">
              <div>
                <Text fw={700}>{g.name}</Text>
                {g.description && (
                  <Text size="sm" c="dimmed">
                    {g.description}
                  </Text>
                )}
              </div>
              {list(g.consents.flatMap((id) => (byId.get(id) ? [byId.get(id) as Consent] : [])))}
            </Stack>
          </Card>
        ))}
        {loose.length > 0 && (
          <Card withBorder padding="md">
            <Stack gap="md">{list(loose)}</Stack>
          </Card>
        )}
        {save.isError && <Alert color="red">{save.error.message}</Alert>}
        {save.isSuccess && (
          <Alert color="green" variant="light" role="status">
            Saved.
          </Alert>
        )}
        {anyGranted && (
          <Button variant="default" onClick={() => save.mutate({ unsubscribed: true })} loading={save.isPending}>
            Unsubscribe from everything
          </Button>
        )}
      </Stack>
    </Shell>
  );
}
