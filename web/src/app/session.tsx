import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { roleAllows, type Role } from '../../../src/domain/auth/roles.ts';
import { api, ApiError, onUnauthorized, setCsrfToken } from '../api/client.ts';

// The signed-in session (GET /console/v1/session). The role decides what the console offers; the server
// enforces the same table (src/domain/auth/roles.ts) on every request, whatever the page shows.

export interface ConsoleSession {
  object: 'console_session';
  user: { id: string; login: string; email: string; first_name: string | null; last_name: string | null; is_owner: boolean };
  project: { id: string; name: string };
  role: Role;
  projects: Array<{ id: string; name: string; role: string }>;
  csrf_token: string;
  expires_at: string;
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
  return query;
}

/** Remembers a session the API just opened (sign-in, setup, invitation). */
export function useAdoptSession() {
  const client = useQueryClient();
  return (session: ConsoleSession) => {
    setCsrfToken(session.csrf_token);
    client.clear();
    client.setQueryData(SESSION_KEY, session);
  };
}

/** Whether the signed-in role may call `method route` (a route pattern, e.g. `/v1/campaigns/:campaignId`). */
export function useCan(): (method: string, route: string) => boolean {
  const { data } = useSession();
  return (method, route) => (data ? roleAllows(data.role, method, route) : false);
}
