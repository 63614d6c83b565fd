import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useState } from 'react';
import { fieldOfError, fieldMessageOf } from '../api/field-errors.ts';
import { ErrorAlert } from './ErrorAlert.tsx';
import { notifyDone, notifyFailed } from './notify.ts';

// What the console's forms share: sending one request with a busy button and the API's error kept (shown
// next to the field its `details` name, or under the form), a card holding a titled form, and a
// confirmation before an action that cannot be undone.

/**
 * A form's submission: `submit(action)` makes the submit handler (prevents the page load, clears the last
 * error, marks busy, keeps what the API refused). `errorFor(name)` is the API's message when it names the
 * field `fields[name]`; `formError` is an error no field claims.
 */
export function useFormSubmit<F extends Record<string, string>>(fields: F) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = fieldOfError(error, fields);
  return {
    error,
    setError,
    busy,
    errorFor: (name: keyof F & string) => (field === name ? fieldMessageOf(error) : undefined),
    formError: error !== null && field === null ? error : null,
    submit: (action: () => Promise<void>) => async (event?: React.FormEvent) => {
      event?.preventDefault();
      setError(null);
      setBusy(true);
      try {
        await action();
      } catch (caught) {
        setError(caught);
      } finally {
        setBusy(false);
      }
    },
  };
}

/** A bordered card that is a form: a title, the fields, the error no field claims, and the submit button. */
export function FormCard({ title, onSubmit, error, errorTitle, submit, busy, children }: {
  title: string;
  onSubmit: (event: React.FormEvent) => Promise<void>;
  error: unknown;
  errorTitle: string;
  submit: string;
  busy: boolean;
  children: React.ReactNode;
}) {
  return (
    <Card withBorder component="form" onSubmit={(e: React.FormEvent) => void onSubmit(e)}>
      <Stack>
        <Title order={2} size="h5">
          {title}
        </Title>
        {children}
        {error !== null && <ErrorAlert error={error} title={errorTitle} />}
        <Group>
          <Button type="submit" loading={busy}>
            {submit}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** Asks first; on "yes" runs `action`, then says `done`, or why it failed under the title `failed`. */
export function confirmThen({ title, body, confirm, cancel = 'Cancel', danger = true, action, done, failed }: {
  title: string;
  body: React.ReactNode;
  confirm: string;
  cancel?: string;
  danger?: boolean;
  action: () => Promise<unknown>;
  done?: string;
  failed: string;
}): void {
  modals.openConfirmModal({
    title,
    children: typeof body === 'string' ? <Text size="sm">{body}</Text> : body,
    labels: { confirm, cancel },
    confirmProps: danger ? { color: 'red' } : {},
    onConfirm: () =>
      void (async () => {
        try {
          await action();
          if (done !== undefined) notifyDone(done);
        } catch (caught) {
          notifyFailed(failed, caught);
        }
      })(),
  });
}
