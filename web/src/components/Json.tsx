import { Code } from '@mantine/core';

export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <Code block aria-label={label} style={{ maxHeight: 320, overflow: 'auto' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}
