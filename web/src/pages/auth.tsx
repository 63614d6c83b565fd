import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api, ApiError } from '../api/client.ts';
import { fieldOfError, fieldMessageOf, messageOf } from '../api/field-errors.ts';
import { useAdoptSession, useSession, type ConsoleSession } from '../app/session.tsx';

// Signing in, creating the first admin with the link `punchcard start` printed, accepting an
// invitation, and setting a new password with a reset link. Link tokens travel in the URL fragment, which browsers never send to servers or proxies.

function Frame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w={400} maw="100%" component="main">
        <Stack>
          <Title order={1} size="h3">
            {title}
          </Title>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}

/**
 * A new password typed twice, with the server's refusal: under the password when it names that field,
 * otherwise as an alert below both (the invitation and reset pages).
 */
function NewPasswordFields(props: {
  label: string;
  description: string;
  password: string;
  repeat: string;
  onPassword: (value: string) => void;
  onRepeat: (value: string) => void;
  error: unknown;
  field: string | null;
}) {
  const { error, field } = props;
  return (
    <>
      <PasswordInput
        label={props.label}
        description={props.description}
        autoComplete="new-password"
        required
        value={props.password}
        onChange={(e) => props.onPassword(e.currentTarget.value)}
        error={field === 'password' ? fieldMessageOf(error) : undefined}
      />
      <PasswordInput label="Repeat it" autoComplete="new-password" required value={props.repeat} onChange={(e) => props.onRepeat(e.currentTarget.value)} />
      {error !== null && field === null && (
        <Alert color="red" role="alert">
          {messageOf(error)}
        </Alert>
      )}
    </>
  );
}

/**
 * The invitation and reset pages' form: a new password typed twice, sent with the link's token to `path`,
 * which answers a session that is adopted before going home.
 */
function useNewPasswordForm(path: string, token: string) {
  const navigate = useNavigate();
  const adopt = useAdoptSession();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (password !== repeat) {
      setError(new Error('The two passwords differ'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      adopt(await api<ConsoleSession>('POST', path, { token, password }));
      navigate('/', { replace: true });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const fields = { password, repeat, onPassword: setPassword, onRepeat: setRepeat, error, field: fieldOfError(error, { password: 'password' }) };
  return { fields, busy, submit };
}

function tokenFromHash(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}

/** Seconds left while sign-in is slowed down after failures (the API's Retry-After). */
function useCountdown(): [number, (seconds: number) => void] {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return [left, setLeft];
}

export function SignInPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const adopt = useAdoptSession();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wait, setWait] = useCountdown();
  const from = (location.state as { from?: string } | null)?.from ?? '/';

  useEffect(() => {
    if (session.data) navigate(from, { replace: true });
  }, [session.data, from, navigate]);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      adopt(await api<ConsoleSession>('POST', '/console/v1/session', { email, password }));
      navigate(from, { replace: true });
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) setWait(e.body.retry_after ?? 1);
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Frame title="Sign in to Punchcard">
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <TextInput label="E-mail" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} data-autofocus autoFocus />
          <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          {error && (
            <Alert color="red" role="alert" title={wait > 0 ? 'Slowed down' : 'Not signed in'}>
              {error}
              {wait > 0 && <Text size="sm">You can try again in {wait} s.</Text>}
            </Alert>
          )}
          <Button type="submit" loading={busy} disabled={wait > 0}>
            {wait > 0 ? `Wait ${wait} s` : 'Sign in'}
          </Button>
          <Text size="xs" c="dimmed">
            First start? <code>punchcard start</code> prints a one-time link that creates the first admin. Forgot your password? Ask an ADMIN for a password reset link; if no ADMIN can sign in, the operator prints one with <code>punchcard users reset-password</code>.
          </Text>
        </Stack>
      </form>
    </Frame>
  );
}

export function SetupPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const adopt = useAdoptSession();
  const token = tokenFromHash(location.hash);
  const setup = useQuery({ queryKey: ['console-setup'], queryFn: () => api<{ needed: boolean }>('GET', '/console/v1/setup') });
  const [form, setForm] = useState({ email: '', password: '', first_name: '', last_name: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = fieldOfError(error, { email: 'email', password: 'password', first_name: 'first_name', last_name: 'last_name' });
  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.currentTarget.value });

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      adopt(await api<ConsoleSession>('POST', '/console/v1/setup', { token, ...form }));
      navigate('/', { replace: true });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  // A used link would otherwise show the form again and refuse it only after the admin typed everything.
  if (setup.data && !setup.data.needed) {
    return (
      <Frame title="Create the first admin">
        <Alert color="orange" role="alert" title="This link has been used">
          The first admin exists already, so setup links no longer work. Sign in with that account; a forgotten
          password is reset with <code>punchcard users reset-password</code>.
        </Alert>
        <Anchor href="/dashboard/sign-in">Sign in</Anchor>
      </Frame>
    );
  }
  if (token === '') {
    return (
      <Frame title="Create the first admin">
        <Text>Open the one-time link that <code>punchcard start</code> printed; it carries the setup token.</Text>
        <Anchor href="/dashboard/sign-in">Sign in instead</Anchor>
      </Frame>
    );
  }
  return (
    <Frame title="Create the first admin">
      <Text size="sm" c="dimmed">
        This account owns the organisation and is ADMIN of every project. The link works once.
      </Text>
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <TextInput label="E-mail" type="email" autoComplete="username" required value={form.email} onChange={set('email')} error={field === 'email' ? fieldMessageOf(error) : undefined} />
          <PasswordInput
            label="Password"
            description="At least 10 characters"
            autoComplete="new-password"
            required
            value={form.password}
            onChange={set('password')}
            error={field === 'password' ? fieldMessageOf(error) : undefined}
          />
          <TextInput label="First name" value={form.first_name} onChange={set('first_name')} />
          <TextInput label="Last name" value={form.last_name} onChange={set('last_name')} />
          {error !== null && field === null && (
            <Alert color="red" role="alert">
              {messageOf(error)}
            </Alert>
          )}
          <Button type="submit" loading={busy}>
            Create admin and sign in
          </Button>
        </Stack>
      </form>
    </Frame>
  );
}

export function InvitationPage() {
  const location = useLocation();
  const token = tokenFromHash(location.hash);
  const form = useNewPasswordForm('/console/v1/invitation', token);

  return (
    <Frame title="Accept your invitation">
      <form onSubmit={(e) => void form.submit(e)}>
        <Stack>
          <NewPasswordFields
            label="Password"
            description="Choose one of at least 10 characters, or, if you already have an account, enter its password"
            {...form.fields}
          />
          <Button type="submit" loading={form.busy} disabled={token === ''}>
            Set password and sign in
          </Button>
        </Stack>
      </form>
    </Frame>
  );
}

interface ResetPreview {
  email: string;
  project: { id: string; name: string };
  expires_at: string;
}

export function PasswordResetPage() {
  const location = useLocation();
  const token = tokenFromHash(location.hash);
  const form = useNewPasswordForm('/console/v1/password-reset', token);
  // Names the account and the shop before anything is changed; the link stays unused until the form is
  // sent. Read once, outside the query cache: signing in clears that cache, and a cached query would ask
  // again about the link just spent.
  const [preview, setPreview] = useState<{ data?: ResetPreview; error?: unknown }>({});
  useEffect(() => {
    if (token === '') return;
    let current = true;
    api<ResetPreview>('POST', '/console/v1/password-reset/preview', { token }).then(
      (data) => current && setPreview({ data }),
      (error: unknown) => current && setPreview({ error }),
    );
    return () => {
      current = false;
    };
  }, [token]);

  if (token === '' || preview.error !== undefined) {
    return (
      <Frame title="Reset your password">
        <Alert color="red" role="alert">
          {token === '' ? 'Open the whole one-time link you were given; it carries the reset token.' : messageOf(preview.error)}
        </Alert>
        <Anchor href="/dashboard/sign-in">Sign in instead</Anchor>
      </Frame>
    );
  }
  return (
    <Frame title="Reset your password">
      {preview.data ? (
        <Text size="sm" data-testid="reset-account" style={{ overflowWrap: 'anywhere' }}>
          A new password for <b>{preview.data.email}</b> at <b>{preview.data.project.name}</b>. Every session of this account is signed out; you are signed in here.
        </Text>
      ) : (
        <Text size="sm" c="dimmed">Checking the link…</Text>
      )}
      <form onSubmit={(e) => void form.submit(e)}>
        <Stack>
          <NewPasswordFields
            label="New password"
            description="At least 10 characters"
            {...form.fields}
          />
          <Button type="submit" loading={form.busy} disabled={!preview.data}>
            Set password and sign in
          </Button>
        </Stack>
      </form>
    </Frame>
  );
}
