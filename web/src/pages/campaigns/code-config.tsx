import { Group, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { READABLE_CHARSET, type CodeOptions } from './code-options.ts';

// How a code campaign's codes look and how often each may be used: the API's code_config (charset,
// pattern with '#' placeholders or a length, prefix, postfix) and voucher.redemption.quantity.
//
// The server keeps the vendor's default for clients that send no charset (the project's
// default_code_config.charset, else alphanumeric); the console preselects a set without look-alike
// characters so codes read aloud or typed from paper do not fail, and offers the project's default too.

const CHARSETS = [
  { value: 'readable', label: 'Easy to read (no 0/O, 1/I/l)' },
  { value: 'alphabetic_uppercase', label: 'Capital letters' },
  { value: 'numbers', label: 'Digits' },
  { value: 'alphanumeric', label: 'Letters and digits (mixed case)' },
  { value: 'alphabetic', label: 'Letters (mixed case)' },
  { value: 'alphabetic_lowercase', label: 'Lowercase letters' },
  { value: 'custom', label: 'Custom characters…' },
  { value: 'project', label: "The project's default" },
];

const SAMPLE_SETS: Record<string, string> = {
  readable: READABLE_CHARSET,
  alphabetic_uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  numbers: '0123456789',
  alphanumeric: '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  alphabetic: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  alphabetic_lowercase: 'abcdefghijklmnopqrstuvwxyz',
};

/** One code of this shape, to show what the codes will look like (not one that will be issued). */
function example(o: CodeOptions): string {
  const chars = [...(SAMPLE_SETS[o.charset] ?? (o.charset === 'custom' ? o.custom : ''))];
  if (chars.length === 0) return '';
  const slots = o.shape === 'pattern' ? o.pattern : '#'.repeat(Math.min(Number(o.length) || 0, 40));
  let i = 0;
  const body = [...slots].map((c) => (c === '#' ? (chars[(i++ * 7 + 3) % chars.length] as string) : c)).join('');
  return `${o.prefix}${body}${o.postfix}`;
}

export function CodeConfigFields({ value: o, onChange, errors = {} }: { value: CodeOptions; onChange: (value: CodeOptions) => void; errors?: { count?: string | undefined; config?: string | undefined } }) {
  const set = (patch: Partial<CodeOptions>) => onChange({ ...o, ...patch });
  const sample = example(o);
  return (
    <Stack gap="xs" data-testid="code-config">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput label="Codes to generate now" value={o.count} onChange={(count) => set({ count })} min={0} error={errors.count} />
        <NumberInput
          label="Uses per code"
          description="Empty: unlimited"
          value={o.limit}
          onChange={(limit) => set({ limit })}
          min={1}
          allowDecimal={false}
        />
        <Select label="Characters" data={CHARSETS} value={o.charset} allowDeselect={false} onChange={(charset) => set({ charset: charset ?? 'readable' })} />
        {o.charset === 'custom' && <TextInput label="Custom characters" placeholder="e.g. ACDEFHJKMNPRTWXY3479" value={o.custom} onChange={(e) => set({ custom: e.currentTarget.value })} />}
      </SimpleGrid>
      <Group align="flex-end" wrap="wrap">
        <SegmentedControl
          aria-label="Code shape"
          value={o.shape}
          onChange={(shape) => set({ shape: shape as CodeOptions['shape'] })}
          data={[
            { value: 'length', label: 'Length' },
            { value: 'pattern', label: 'Pattern' },
          ]}
        />
        {o.shape === 'length' ? (
          <NumberInput label="Random characters" value={o.length} onChange={(length) => set({ length })} min={1} max={100} allowDecimal={false} w={160} />
        ) : (
          <TextInput label="Pattern" required description="Each # becomes a random character" placeholder="e.g. ##-####" value={o.pattern} onChange={(e) => set({ pattern: e.currentTarget.value })} w={220} />
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Code prefix" placeholder="e.g. SPRING-" value={o.prefix} onChange={(e) => set({ prefix: e.currentTarget.value })} />
        <TextInput label="Code postfix" placeholder="e.g. -2027" value={o.postfix} onChange={(e) => set({ postfix: e.currentTarget.value })} />
      </SimpleGrid>
      {errors.config && (
        <Text size="sm" c="red" role="alert">
          {errors.config}
        </Text>
      )}
      {sample && (
        <Text size="sm" c="dimmed" data-testid="code-example">
          Codes look like <code>{sample}</code>
        </Text>
      )}
    </Stack>
  );
}
