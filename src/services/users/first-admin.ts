import { DomainError } from '../../domain/errors.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import { anyUserExists, insertUserToken, retireUserTokens } from '../../store/users.ts';
import { inTransaction, type Deps } from '../context.ts';
import { createOwner } from './sessions.ts';

// The console has no default password. At start, while no user exists, either the first admin comes
// from the environment (PUNCHCARD_ADMIN_EMAIL and PUNCHCARD_ADMIN_PASSWORD), or `punchcard start` prints
// a one-time link where the first person to open it creates the admin. Each start makes a new link and
// retires the previous one; the link lives a day.

export const SETUP_LINK_TTL_MS = 24 * 3600 * 1000;

export type FirstAdmin =
  | { kind: 'exists' }
  | { kind: 'created'; email: string }
  | { kind: 'link'; url: string; expiresAt: string };

export async function prepareFirstAdmin(deps: Deps): Promise<FirstAdmin> {
  if (await anyUserExists(deps.db)) return { kind: 'exists' };
  const fromEnvironment = deps.config.console.firstAdmin;
  if (fromEnvironment) {
    const passwordHash = await hashPassword(fromEnvironment.password);
    try {
      await inTransaction(deps, async (tx) => {
        if (await anyUserExists(tx)) return;
        await createOwner(deps, tx, { email: fromEnvironment.email, passwordHash, firstName: null, lastName: null });
      });
    } catch (error) {
      // Another process starting at the same moment created it.
      if (!(error instanceof DomainError && error.key === 'duplicate_found')) throw error;
    }
    return { kind: 'created', email: fromEnvironment.email };
  }
  const token = newSecret(40);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SETUP_LINK_TTL_MS).toISOString();
  await inTransaction(deps, async (tx) => {
    await retireUserTokens(tx, 'setup', null, now.toISOString());
    await insertUserToken(tx, {
      id: deps.ids.next('utok'),
      token_hash: hashSecret(deps.pepper, token),
      purpose: 'setup',
      user_id: null,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
  });
  return { kind: 'link', url: `${deps.config.publicUrl}/dashboard/setup#token=${token}`, expiresAt };
}

/** What `punchcard start` prints about the console. */
export function describeFirstAdmin(firstAdmin: FirstAdmin, publicUrl: string): string {
  switch (firstAdmin.kind) {
    case 'exists':
      return `Console: ${publicUrl}/dashboard\n`;
    case 'created':
      return `Console: ${publicUrl}/dashboard — sign in as ${firstAdmin.email} (PUNCHCARD_ADMIN_EMAIL, with PUNCHCARD_ADMIN_PASSWORD)\n`;
    case 'link':
      return (
        `Console: no user yet. Open this one-time link to create the first admin (it works once, until ${firstAdmin.expiresAt}):\n` +
        `  ${firstAdmin.url}\n`
      );
  }
}
