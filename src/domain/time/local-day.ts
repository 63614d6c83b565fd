// The instant a calendar day begins in a time zone (IANA name or `GMT±HH:MM`, as projects store it):
// the inverse of `localDate` in src/domain/validity/validity.ts, for "points collected since the start
// of the period" style windows. Pure.

const GMT_OFFSET = /^GMT([+-])(\d{2}):(\d{2})$/;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Milliseconds of the wall-clock reading of `at` in the zone, as if that reading were UTC. */
function wallClock(at: number, timeZone: string): number {
  const offset = GMT_OFFSET.exec(timeZone);
  if (offset) return at + (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000;
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(new Date(at)).map((p) => [p.type, p.value]));
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** The first instant of `day` (YYYY-MM-DD) in the zone. */
export function startOfLocalDay(day: string, timeZone: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const midnight = Date.UTC(year, month - 1, date);
  // Start from UTC midnight and correct by the zone's offset at the guess; twice settles DST edges.
  let guess = midnight;
  for (let i = 0; i < 3; i++) {
    const next = midnight - (wallClock(guess, timeZone) - guess);
    if (next === guess) break;
    guess = next;
  }
  return new Date(guess);
}
