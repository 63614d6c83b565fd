import { ApiError } from './errors.ts';

// The API names the member a validation error concerns in its `details` ("Property .discount.amount_off
// should be integer", "Payload should have required property 'name'"). A form asks which of its fields
// that is, to show the message next to it; what no field claims is shown above the form.

/** The dotted path an error's details name (`discount.amount_off`), or null. */
export function pathOfDetails(details: string | undefined): string | null {
  if (!details) return null;
  const required = /^(?:Payload|Property (\.[\w.[\]…-]+)) should have required property '([^']+)'/.exec(details);
  if (required) return [normalize(required[1] ?? ''), required[2]].filter((p) => p !== '').join('.');
  const property = /Property (\.[\w.[\]-]+)/.exec(details);
  if (property?.[1]) return normalize(property[1]);
  return null;
}

function normalize(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
}

/**
 * Which field shows the error: the one whose API path is the error's path or its nearest ancestor, among
 * `fields` (form field name → API path). Null when no field claims it.
 */
export function fieldOfError(error: unknown, fields: Record<string, string>): string | null {
  if (!(error instanceof ApiError)) return null;
  const path = pathOfDetails(error.body.details);
  if (path === null) return null;
  let best: { field: string; length: number } | null = null;
  for (const [field, apiPath] of Object.entries(fields)) {
    if (path === apiPath || path.startsWith(`${apiPath}.`)) {
      if (!best || apiPath.length > best.length) best = { field, length: apiPath.length };
    }
  }
  return best?.field ?? null;
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.body.details ?? error.body.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The message shown beside the field an error names: the field's label already says which member it is,
 * so "Property .password must have at least 10 characters" reads "Must have at least 10 characters".
 */
export function fieldMessageOf(error: unknown): string {
  const message = messageOf(error);
  if (/^Payload should have required property/.test(message) || /^Property \S+ should have required property/.test(message)) return 'Required';
  const rest = /^Property \.[\w.[\]…-]+ (.+)$/s.exec(message)?.[1];
  return rest === undefined ? message : rest.charAt(0).toUpperCase() + rest.slice(1);
}
