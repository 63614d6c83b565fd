import { hashSecret, newSecret } from '../../lib/secrets.ts';
import type { Tx } from '../../store/db.ts';
import * as store from '../../store/users.ts';
import type { Deps } from '../context.ts';

// One-time links for a user (invitations, password resets): a random secret in the URL fragment (browsers
// never send it to a server or a proxy), stored only as its keyed hash. A new link retires the user's
// earlier links of the same purpose, so only the newest works; it is spent by one conditional update
// (src/store/users.ts `spendUserToken`), so it works once.

export type UserLinkPurpose = 'invitation' | 'invitation-join' | 'password-reset';

/** The console page each purpose opens. */
const PAGE: Record<UserLinkPurpose, string> = {
  invitation: 'invitation',
  'invitation-join': 'invitation',
  'password-reset': 'password-reset',
};

export interface IssuedLink {
  url: string;
  expires_at: string;
}

/** Issues a link in the caller's transaction. `projectId`: the project it was issued in, where it leads. */
export async function issueUserLink(
  deps: Deps,
  tx: Tx,
  link: { purpose: UserLinkPurpose; userId: string; ttlMs: number; projectId?: string },
): Promise<IssuedLink> {
  const token = newSecret(40);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + link.ttlMs).toISOString();
  await store.retireUserTokens(tx, link.purpose, link.userId, now.toISOString());
  await store.insertUserToken(tx, {
    id: deps.ids.next('utok'),
    token_hash: hashSecret(deps.pepper, token),
    purpose: link.purpose,
    user_id: link.userId,
    project_id: link.projectId ?? null,
    created_at: now.toISOString(),
    expires_at: expiresAt,
    used_at: null,
  });
  return { url: `${deps.config.publicUrl}/dashboard/${PAGE[link.purpose]}#token=${token}`, expires_at: expiresAt };
}
