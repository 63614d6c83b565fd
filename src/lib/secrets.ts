import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomString } from './ids.ts';

// Secrets (API tokens, OAuth tokens) are stored as HMAC-SHA256 digests keyed with an installation-wide
// pepper. HMAC is fast enough to run on every request, which a password KDF is not; the secrets are long
// random strings, so a slow hash would add nothing.

export function hashSecret(pepper: string, secret: string): string {
  return createHmac('sha256', pepper).update(secret).digest('hex');
}

export function secretMatches(pepper: string, secret: string, storedHash: string): boolean {
  const candidate = Buffer.from(hashSecret(pepper, secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return candidate.length === stored.length && timingSafeEqual(candidate, stored);
}

export function newPepper(): string {
  return randomBytes(32).toString('hex');
}

export function newSecret(length = 36): string {
  return randomString(length, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
}
