import { createHmac } from 'node:crypto';
import { hashSecret, secretMatches } from '../../lib/secrets.ts';

// The `token` of an export's download link (DECISIONS 25). A link must work without API keys (it is
// handed to browsers and spreadsheet tools), so the token alone must name the project and prove it was
// issued for this export:
//
//   <project id, base64url> "." <HMAC-SHA256(pepper, "export-download:" project ":" export ":" expiry)>
//
// The database keeps only the token's keyed hash and its expiry. Every GET of the export shows the link
// again (as the vendor does), so the token is re-derived from the installation pepper, which never lives
// in the database: a copy of the database alone can neither read nor forge a token.

export const DOWNLOAD_TOKEN_TTL_MS = 24 * 3600_000;

export function downloadToken(pepper: string, projectId: string, exportId: string, expiresAt: string): string {
  const mac = createHmac('sha256', pepper).update(`export-download:${projectId}:${exportId}:${expiresAt}`).digest('base64url');
  return `${Buffer.from(projectId, 'utf8').toString('base64url')}.${mac}`;
}

/** What is stored of a token. */
export function downloadTokenHash(pepper: string, token: string): string {
  return hashSecret(pepper, token);
}

/** The project a token claims to belong to; checking the claim is `downloadTokenMatches`. */
export function projectOfDownloadToken(token: string): string | null {
  const [encoded, mac, extra] = token.split('.');
  if (!encoded || !mac || extra !== undefined || token.length > 512) return null;
  const projectId = Buffer.from(encoded, 'base64url').toString('utf8');
  return projectId.length > 0 && Buffer.from(projectId, 'utf8').toString('base64url') === encoded ? projectId : null;
}

/** Constant-time comparison of a presented token with the stored hash. */
export function downloadTokenMatches(pepper: string, token: string, storedHash: string): boolean {
  return secretMatches(pepper, token, storedHash);
}
