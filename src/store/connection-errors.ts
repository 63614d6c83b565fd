// Turns the errors of reaching a database into one line an operator can act on: which database, on
// which server, and what to do. The URL's password never appears.

interface DriverError {
  code?: string;
  message?: string;
}

function where(url: URL): string {
  return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
}

/** A sentence for a PostgreSQL connection failure, or null when the error is not one we recognise. */
export function describeConnectionError(databaseUrl: string, error: unknown): string | null {
  if (!databaseUrl.startsWith('postgres://') && !databaseUrl.startsWith('postgresql://')) return null;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return null;
  }
  const failure = (error ?? {}) as DriverError;
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  const user = decodeURIComponent(url.username) || 'postgres';
  switch (failure.code) {
    case '3D000':
      return (
        `PostgreSQL database "${name}" does not exist on ${where(url)}. Create it once, e.g. ` +
        `\`createdb -h ${url.hostname || 'localhost'} -p ${url.port || '5432'} -U ${user} ${name}\` or \`CREATE DATABASE "${name}";\` in psql, then start again`
      );
    case '28P01':
    case '28000':
      return `PostgreSQL on ${where(url)} refused user "${user}" for database "${name}": check the user name and password in DATABASE_URL`;
    case 'ECONNREFUSED':
      return `Nothing answers at ${where(url)} (DATABASE_URL): is PostgreSQL running and listening there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `The host "${url.hostname}" of DATABASE_URL cannot be resolved`;
    default:
      return null;
  }
}
