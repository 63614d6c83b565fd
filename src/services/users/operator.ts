import { findDefaultProject } from '../../store/projects.ts';
import * as store from '../../store/users.ts';
import { inTransaction, type Deps } from '../context.ts';
import { issueUserLink } from './links.ts';
import { INVITATION_TTL_MS, PASSWORD_RESET_TTL_MS } from './project-users.ts';

// What the operator does from the command line when no ADMIN can sign in (`punchcard users …`): list
// the accounts, and print a one-time link for one of them. Whoever runs the command holds the database
// already, so these answer about the whole organisation; they never show a password or a link's secret
// other than the new link itself.

export interface AccountSummary {
  email: string;
  name: string;
  status: store.UserStatus;
  is_owner: boolean;
  projects: Array<{ id: string; name: string; role: string }>;
}

export async function listAccounts(deps: Pick<Deps, 'db'>): Promise<AccountSummary[]> {
  return (await store.listAllUsers(deps.db)).map(({ row, roles }) => ({
    email: row.email,
    name: [row.first_name, row.last_name].filter((part) => part !== null && part !== '').join(' '),
    status: store.toUserObject(row, roles).status,
    is_owner: Boolean(row.is_owner),
    projects: roles.map((r) => ({ id: r.project_id, name: r.project_name, role: r.role })),
  }));
}

export type OperatorLink =
  | { kind: 'password-reset' | 'invitation'; email: string; project: string; url: string; expires_at: string }
  | { kind: 'unknown-account' | 'no-project'; email: string };

/**
 * A one-time link for the account with this e-mail: a password reset link, or, for an account that never
 * set a password, a new invitation link (which sets one). The reset link leads to the default project when
 * the account works there, else to its first one. Earlier links of the same kind stop working.
 */
export async function operatorLink(deps: Deps, email: string): Promise<OperatorLink> {
  return inTransaction(deps, async (tx) => {
    const user = await store.findUserByLogin(tx, email);
    if (!user) return { kind: 'unknown-account', email };
    const roles = await store.rolesOfUser(tx, user.id);
    const defaultProject = await findDefaultProject(tx);
    const project = roles.find((r) => r.project_id === defaultProject?.id) ?? roles[0];
    if (!project) return { kind: 'no-project', email: user.email };
    const kind = user.password_hash === null ? 'invitation' : 'password-reset';
    const link = await issueUserLink(deps, tx, {
      purpose: kind,
      userId: user.id,
      ttlMs: kind === 'invitation' ? INVITATION_TTL_MS : PASSWORD_RESET_TTL_MS,
      projectId: project.project_id,
    });
    return { kind, email: user.email, project: project.project_name, ...link };
  });
}
