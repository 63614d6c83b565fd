// Both drivers report constraint and concurrency failures differently; services ask these questions only.

interface DriverError {
  code?: unknown;
  message?: unknown;
}

/** A unique index rejected the write (SQLite SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY, PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as DriverError;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The transaction lost a race and can simply be run again (PostgreSQL serialization failure or deadlock). */
export function isRetryableConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as DriverError;
  return code === '40001' || code === '40P01' || code === 'SQLITE_BUSY';
}
