import { List, Stack, Text } from '@mantine/core';
import { describe, fromApi } from '../rules/translate.ts';
import type { CouponRule, CouponTerms as Terms } from './api.ts';

// A coupon's terms in plain words: when it can be used, how many uses are left, and the conditions of its
// validation rules. Each condition is worded by the console's rule translation (web/src/rules/translate.ts),
// so the cockpit and the rule builder say the same thing about the same rule.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** "P2D" → "2 days", "PT1H30M" → "1 hour 30 minutes"; null when it is not a duration this reads. */
function duration(iso: string | undefined): string | null {
  const match = iso ? /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(iso) : null;
  if (!match) return null;
  const parts = (['week', 'day', 'hour', 'minute'] as const).flatMap((unit, i) => {
    const n = Number(match[i + 1] ?? 0);
    return n > 0 ? [`${n} ${unit}${n === 1 ? '' : 's'}`] : [];
  });
  return parts.length > 0 ? parts.join(' ') : null;
}

const dayList = (days: readonly number[]) => [...days].sort((a, b) => a - b).map((d) => DAYS[d] ?? String(d)).join(', ');

/** When the coupon can be used beyond its start and expiry dates, as short lines. */
function windows(terms: Terms): string[] {
  const lines: string[] = [];
  if (terms.validity_day_of_week && terms.validity_day_of_week.length > 0 && terms.validity_day_of_week.length < 7) {
    lines.push(`Only on ${dayList(terms.validity_day_of_week)}`);
  }
  for (const slot of terms.validity_hours?.daily ?? []) {
    if (!slot.start_time || !slot.expiration_time) continue;
    lines.push(`${slot.start_time}–${slot.expiration_time}${slot.days_of_week && slot.days_of_week.length > 0 ? ` on ${dayList(slot.days_of_week)}` : ''}`);
  }
  const every = duration(terms.validity_timeframe?.interval);
  const lasting = duration(terms.validity_timeframe?.duration);
  if (every && lasting) lines.push(`Usable for ${lasting}, every ${every}`);
  return lines;
}

/** The conditions of one rule, one line each (translate.ts words each one). */
function ruleLines(rule: CouponRule): { join: 'AND' | 'OR'; lines: string[] } {
  if (!rule.rules) return { join: 'AND', lines: [] };
  const read = fromApi({ rules: rule.rules });
  if (!read.ok) return { join: 'AND', lines: [] };
  const { model } = read;
  return { join: model.combinator, lines: model.conditions.map((condition) => describe({ ...model, conditions: [condition] })) };
}

export function CouponTerms({ terms, shop }: { terms: Terms; shop: string }) {
  const when = windows(terms);
  return (
    <Stack gap={4} data-testid="coupon-terms">
      {when.map((line) => (
        <Text size="sm" key={line}>
          {line}
        </Text>
      ))}
      {terms.uses_left !== null && (
        <Text size="sm" fw={600} data-testid="uses-left">
          {terms.uses_left === 0 ? 'No uses left' : `${terms.uses_left} ${terms.uses_left === 1 ? 'use' : 'uses'} left`}
        </Text>
      )}
      {terms.conditions.map((rule, i) => {
        const { join, lines } = ruleLines(rule);
        return (
          <Stack gap={2} key={i}>
            {lines.length > 0 && (
              <>
                <Text size="sm" c="dimmed">
                  {join === 'OR' && lines.length > 1 ? 'Any one of:' : 'Conditions:'}
                </Text>
                <List size="sm" spacing={2}>
                  {lines.map((line) => (
                    <List.Item key={line}>{line}</List.Item>
                  ))}
                </List>
              </>
            )}
            {rule.applies_to.length > 0 && <Text size="sm">Applies to: {rule.applies_to.join(', ')}</Text>}
            {rule.excluded.length > 0 && <Text size="sm">Not for: {rule.excluded.join(', ')}</Text>}
            {rule.more_conditions && (
              <Text size="sm" c="dimmed">
                Further conditions set by {shop} may apply.
              </Text>
            )}
          </Stack>
        );
      })}
    </Stack>
  );
}
