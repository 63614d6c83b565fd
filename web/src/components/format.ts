// Display helpers. Amounts are integer minor units on the wire.

export function money(minor: number | null | undefined, currency = ''): string {
  if (minor === null || minor === undefined) return '—';
  const text = (minor / 100).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return currency ? `${text} ${currency}` : text;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function count(n: number): string {
  return n.toLocaleString();
}
