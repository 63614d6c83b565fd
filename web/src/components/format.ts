// Display helpers: one way to write amounts, counts and dates everywhere in the console. Dates are written
// in the project's time zone and numbers and dates in the project's language (its `locale`; the browser's
// when the project sets none), so two members looking at the same redemption read the same day and hour.
// The signed-in session sets them (app/session.tsx). Amounts are integer minor units on the wire.

let locale: string | undefined;
let timeZone: string | undefined;

/** The project's conventions: its language tag (null: the browser's) and time zone (IANA or GMT±HH:MM). */
export function setProjectConventions(project: { locale?: string | null; timezone?: string | null }): void {
  locale = supported(project.locale ?? undefined, (tag) => new Intl.DateTimeFormat(tag));
  // Intl reads a fixed offset as "+02:00"; the project may store it as "GMT+02:00".
  const zone = project.timezone?.replace(/^GMT(?=[+-]\d{2}:\d{2}$)/, '');
  timeZone = supported(zone, (z) => new Intl.DateTimeFormat('en', { timeZone: z }));
}

/** `value` when this browser's Intl accepts it, else undefined (the browser's own default). */
function supported(value: string | undefined, probe: (value: string) => unknown): string | undefined {
  if (!value) return undefined;
  try {
    probe(value);
    return value;
  } catch {
    return undefined;
  }
}

export function money(minor: number | null | undefined, currency = ''): string {
  if (minor === null || minor === undefined) return '—';
  const text = (minor / 100).toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return currency ? `${text} ${currency}` : text;
}

/** A moment (ISO timestamp) as a date and time of day in the project's zone. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
}

/** A calendar day: `YYYY-MM-DD` as it is (no zone moves it), a timestamp as its day in the project's zone. */
export function day(isoOrDate: string | null | undefined): string {
  if (!isoOrDate) return '—';
  const plain = /^\d{4}-\d{2}-\d{2}$/.test(isoOrDate);
  return new Date(plain ? `${isoOrDate}T12:00:00Z` : isoOrDate).toLocaleDateString(locale, { dateStyle: 'medium', timeZone: plain ? 'UTC' : timeZone });
}

/** A calendar day (`YYYY-MM-DD`) as short as a chart's axis needs: day and month in the project's language. */
export function shortDay(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** Per-day rows with a `day` member to label a chart's axis and tooltip with (shortDay). */
export function labelledDays<Row extends { date: string }>(rows: readonly Row[]): Array<Row & { day: string }> {
  return rows.map((row) => ({ ...row, day: shortDay(row.date) }));
}

export function count(n: number): string {
  return n.toLocaleString(locale);
}

/** A major-unit amount typed in a form (`12.5`) as the API's integer minor units (1250); empty is null. */
export function toMinor(major: number | string): number | null {
  if (major === '' || major === null) return null;
  return Math.round(Number(major) * 100);
}
