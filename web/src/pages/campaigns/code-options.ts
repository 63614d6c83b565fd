// The code options of a code campaign's form (code-config.tsx) and the create body's members they make:
// code_config (charset, pattern or length, prefix, postfix) and voucher.redemption.quantity. Plain
// functions, so the body can be checked against the server's own code generation.

/** Digits and capitals without 0/O, 1/I and any lowercase (l): 32 characters that cannot be confused. */
export const READABLE_CHARSET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export interface CodeOptions {
  count: number | string;
  prefix: string;
  postfix: string;
  shape: 'length' | 'pattern';
  length: number | string;
  pattern: string;
  charset: string;
  custom: string;
  /** Uses per code; empty means unlimited. */
  limit: number | string;
}

export function defaultCodeOptions(count: number): CodeOptions {
  return { count, prefix: '', postfix: '', shape: 'length', length: 8, pattern: '', charset: 'readable', custom: '', limit: '' };
}

/** The code_config charset to send; none for the project's default (settings, else alphanumeric). */
function charsetOf(o: CodeOptions): string | null {
  if (o.charset === 'project') return null;
  if (o.charset === 'readable') return READABLE_CHARSET;
  if (o.charset === 'custom') return o.custom;
  return o.charset;
}

/** The create body's members for these options: vouchers_count and the voucher's code_config and redemption. */
export function codeOptionsBody(o: CodeOptions): { vouchers_count: number; voucher: Record<string, unknown> } {
  const charset = charsetOf(o);
  const codeConfig = {
    ...(charset === null ? {} : { charset }),
    ...(o.shape === 'pattern' ? { pattern: o.pattern } : { length: Number(o.length) }),
    ...(o.prefix ? { prefix: o.prefix } : {}),
    ...(o.postfix ? { postfix: o.postfix } : {}),
  };
  return { vouchers_count: Number(o.count), voucher: { code_config: codeConfig, ...(o.limit === '' ? {} : { redemption: { quantity: Number(o.limit) } }) } };
}
