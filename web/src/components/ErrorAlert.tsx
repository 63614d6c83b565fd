import { Alert } from '@mantine/core';
import { ApiError } from '../api/client.ts';
import { messageOf } from '../api/field-errors.ts';

/** The API's own error, as it answered it: what was refused and why (a role's refusal says which role). */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  const refused = error instanceof ApiError && error.status === 403;
  return (
    <Alert color={refused ? 'orange' : 'red'} role="alert" title={title ?? (refused ? 'Not allowed' : 'Something went wrong')} data-testid="error-alert">
      {messageOf(error)}
      {error instanceof ApiError && error.body.key && (
        <div style={{ fontSize: 12, opacity: 0.7 }}>
          {error.status} {error.body.key}
          {error.body.request_id ? ` · ${error.body.request_id}` : ''}
        </div>
      )}
    </Alert>
  );
}
