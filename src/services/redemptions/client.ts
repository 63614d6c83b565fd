import { errors } from '../../domain/errors.ts';
import type { Executor } from '../../store/db.ts';
import { findProject } from '../../store/projects.ts';

/** Client-side redemptions need the project's consent (`client_redeem_enabled`); validations do not. */
export async function assertClientRedeem(db: Executor, projectId: string): Promise<void> {
  const project = await findProject(db, projectId);
  if (!project?.client_redeem_enabled) throw errors.forbidden('Client-side redemption is turned off for this project (client_redeem_enabled)');
}
