import { Alert, Button, Card, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ApiError } from '../../api/client.ts';
import { fieldOfError, fieldMessageOf, messageOf } from '../../api/field-errors.ts';
import { useSession } from '../../app/session.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { notifyDone } from '../../components/notify.ts';

// The signed-in person's own account, for every role: who they are, and changing their password
// (PUT /console/v1/password: the current one is checked like a sign-in, other sessions end).

function ChangePassword() {
  const [form, setForm] = useState({ current: '', next: '', repeat: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [ended, setEnded] = useState<number | null>(null);
  const field = fieldOfError(error, { current: 'current_password', next: 'new_password' });
  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.currentTarget.value });
  const slowed = error instanceof ApiError && error.status === 429;
  // Next to its field the message needs no member name ("Property .new_password must have …").
  const atField = (name: string) => (field === name ? fieldMessageOf(error) : undefined);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (form.next !== form.repeat) {
      setError(new Error('The two new passwords differ'));
      return;
    }
    setBusy(true);
    setError(null);
    setEnded(null);
    try {
      const answer = await api<{ sessions_ended: number }>('PUT', '/console/v1/password', { current_password: form.current, new_password: form.next });
      setForm({ current: '', next: '', repeat: '' });
      setEnded(answer.sessions_ended);
      notifyDone('Password changed');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card withBorder maw={520}>
      <Title order={2} size="h4" mb="sm">Change your password</Title>
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <PasswordInput label="Current password" autoComplete="current-password" required value={form.current} onChange={set('current')} error={atField('current')} />
          <PasswordInput label="New password" description="At least 10 characters" autoComplete="new-password" required value={form.next} onChange={set('next')} error={atField('next')} />
          <PasswordInput label="Repeat the new password" autoComplete="new-password" required value={form.repeat} onChange={set('repeat')} />
          {error !== null && field === null && (
            <Alert color="red" role="alert" title={slowed ? 'Slowed down' : 'Password not changed'}>
              {messageOf(error)}
            </Alert>
          )}
          {ended !== null && (
            <Alert color="green" data-testid="password-changed">
              Your password is changed. {ended === 0 ? 'You had no other session.' : `Your ${ended} other session${ended === 1 ? '' : 's'} ended; this one stays.`}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={busy}>Change password</Button>
          </Group>
          <Text size="xs" c="dimmed">Every other session of your account (other browsers and devices) ends; this one stays.</Text>
        </Stack>
      </form>
    </Card>
  );
}

export function AccountPage() {
  const { data: session } = useSession();
  if (!session) return null;
  const name = [session.user.first_name, session.user.last_name].filter(Boolean).join(' ');
  return (
    <Stack>
      <PageHeader title="Your account" description={`${name ? `${name}, ` : ''}${session.user.email}; ${session.role} in ${session.project.name}.`} />
      <ChangePassword />
    </Stack>
  );
}
