import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo } from 'react';
import { api, ApiError, onRoleRefused, onUnauthorized, setCsrfToken } from '../api/client.ts';
import { setProjectConventions } from '../components/format.ts';

// The signed-in session (GET /console/v1/session). It lists what the user's role may call (`permissions`,
// which the server works out from the table it enforces on every request, src/domain/auth/roles.ts), and the
// console offers an action only when its route is listed: one set of rules, kept on the server.

export interface ConsoleSession {
  object: 'console_session';
  user: { id: string; login: string; email: string; first_name: string | null; last_name: string | null; is_owner: boolean };
  project: { id: string; name: string; timezone: string; locale: string | null };
  role: 'ADMIN' | 'USER' | 'VIEWER' | 'MERCHANT';
  projects: Array<{ id: string; name: string; role: string }>;
  csrf_token: string;
  expires_at: string;
  /** `METHOD /route/:pattern` for every route the role may call, e.g. `POST /v1/campaigns/:campaignId/disable`. */
  permissions: string[];
}

export const SESSION_KEY = ['session'] as const;

export function useSession() {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      try {
        const session = await api<ConsoleSession>('GET', '/console/v1/session');
        setCsrfToken(session.csrf_token);
        setProjectConventions(session.project);
        return session;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
  useEffect(() => onUnauthorized(() => client.setQueryData(SESSION_KEY, null)), [client]);
  // The refusal shows where the action was; the session read again stops offering what the role lost.
  useEffect(() => onRoleRefused(() => void client.invalidateQueries({ queryKey: SESSION_KEY })), [client]);
  return query;
}

/** Remembers a session the API just opened (sign-in, setup, invitation). */
export function useAdoptSession() {
  const client = useQueryClient();
  return (session: ConsoleSession) => {
    setCsrfToken(session.csrf_token);
    setProjectConventions(session.project);
    client.clear();
    client.setQueryData(SESSION_KEY, session);
  };
}

/**
 * Whether the signed-in role may call `method route`, where `route` is the API route's pattern as the server
 * registers it (`/v1/campaigns/:campaignId/disable`, `/management/v1/projects/:projectId/webhooks`). A route
 * the server does not have is never allowed, so a misspelt pattern hides its button for every role.
 */
export function useCan(): (method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string) => boolean {
  const { data } = useSession();
  const allowed = useMemo(() => new Set(data?.permissions ?? []), [data]);
  return useCallback((method, route) => allowed.has(`${method} ${route}`), [allowed]);
}
