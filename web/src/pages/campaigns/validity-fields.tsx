import { ActionIcon, Button, Chip, Group, Input, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';

// The recurring limits inside a campaign's dates: on which weekdays, windows of a duration repeating at an
// interval, and daily hours (each window its own times and days).

export interface Windows {
  days: string[];
  interval: string;
  duration: string;
}

export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function windowsValueOf(source: { validity_day_of_week?: number[] | null; validity_timeframe?: { interval: string; duration: string } | null }): Windows {
  return { days: (source.validity_day_of_week ?? []).map(String), interval: source.validity_timeframe?.interval ?? '', duration: source.validity_timeframe?.duration ?? '' };
}

/** No day chosen means every day; a half-filled timeframe is sent as typed, for the API to name what is missing. */
export function windowsOf({ days, interval, duration }: Windows): { validity_day_of_week: number[] | null; validity_timeframe: { interval: string; duration: string } | null } {
  return {
    validity_day_of_week: days.length === 0 ? null : days.map(Number).sort((a, b) => a - b),
    validity_timeframe: interval.trim() === '' && duration.trim() === '' ? null : { interval: interval.trim(), duration: duration.trim() },
  };
}

export function WindowFields({ value, onChange, errors = {} }: { value: Windows; onChange: (value: Windows) => void; errors?: { days?: string | undefined; timeframe?: string | undefined } }) {
  return (
    <Stack gap="xs">
      <Input.Label>Valid on these days</Input.Label>
      <Chip.Group multiple value={value.days} onChange={(days) => onChange({ ...value, days })}>
        <Group gap={6} role="group" aria-label="Valid on these days">
          {WEEKDAYS.map((day, i) => (
            <Chip key={day} value={String(i)} size="xs">
              {day}
            </Chip>
          ))}
        </Group>
      </Chip.Group>
      <Text size="xs" c={errors.days ? 'red' : 'dimmed'}>
        {errors.days ?? 'None chosen: every day.'}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Repeats every" description="ISO 8601 duration, e.g. P7D (a week)" placeholder="P7D" value={value.interval} onChange={(e) => onChange({ ...value, interval: e.currentTarget.value })} error={errors.timeframe} />
        <TextInput label="Each window lasts" description="e.g. PT2H (two hours); both empty: always" placeholder="PT2H" value={value.duration} onChange={(e) => onChange({ ...value, duration: e.currentTarget.value })} />
      </SimpleGrid>
    </Stack>
  );
}


export interface HourWindow {
  start: string;
  end: string;
  days: string[];
}

export function hoursValueOf(hours: { daily?: Array<{ start_time: string; expiration_time: string; days_of_week: number[] }> } | null | undefined): HourWindow[] {
  return (hours?.daily ?? []).map((w) => ({ start: w.start_time, end: w.expiration_time, days: w.days_of_week.map(String) }));
}

/** `validity_hours` for the rows (none: any time of day). */
export function hoursOf(rows: HourWindow[]): { validity_hours: { daily: Array<{ start_time: string; expiration_time: string; days_of_week: number[] }> } | null } {
  if (rows.length === 0) return { validity_hours: null };
  return { validity_hours: { daily: rows.map((r) => ({ start_time: r.start, expiration_time: r.end, days_of_week: r.days.map(Number).sort((a, b) => a - b) })) } };
}

export function HoursFields({ rows, onChange, error }: { rows: HourWindow[]; onChange: (rows: HourWindow[]) => void; error?: string | undefined }) {
  const update = (index: number, patch: Partial<HourWindow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <Stack gap="xs">
      <Input.Label>Hours of the day</Input.Label>
      {rows.map((row, i) => (
        <Stack key={i} gap={6} data-testid={`hours-${i}`}>
          <Group gap="xs" wrap="nowrap" align="flex-end">
            <TextInput type="time" label="From" aria-label={`Hours ${i + 1} from`} value={row.start} onChange={(e) => update(i, { start: e.currentTarget.value })} style={{ flex: 1, minWidth: 0 }} />
            <TextInput type="time" label="Until" aria-label={`Hours ${i + 1} until`} value={row.end} onChange={(e) => update(i, { end: e.currentTarget.value })} style={{ flex: 1, minWidth: 0 }} />
            <ActionIcon variant="subtle" color="red" mb={6} aria-label={`Remove hours ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              ✕
            </ActionIcon>
          </Group>
          <Chip.Group multiple value={row.days} onChange={(days) => update(i, { days })}>
            <Group gap={6} role="group" aria-label={`Hours ${i + 1} days`}>
              {WEEKDAYS.map((day, d) => (
                <Chip key={day} value={String(d)} size="xs">
                  {day}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
        </Stack>
      ))}
      <Text size="xs" c={error ? 'red' : 'dimmed'}>
        {error ?? (rows.length === 0 ? 'None: any time of day.' : 'Each window applies on the days chosen for it.')}
      </Text>
      <Group>
        <Button size="xs" variant="light" onClick={() => onChange([...rows, { start: '09:00', end: '17:00', days: ['1', '2', '3', '4', '5'] }])}>
          Add hours
        </Button>
      </Group>
    </Stack>
  );
}
