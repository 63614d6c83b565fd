import assert from 'node:assert/strict';
import { test } from 'node:test';
import { day, labelledDays, setProjectConventions, shortDay } from '../../web/src/components/format.ts';

// The console writes days in the project's language: charts label their axis with the short form, the
// same calendar day whatever the project's time zone (a report's day is already the project's day).

test("a chart's days are written short, in the project's language, and never move to another day", () => {
  setProjectConventions({ locale: 'en-GB', timezone: 'Pacific/Kiritimati' });
  assert.equal(shortDay('2026-12-07'), '7 Dec');
  assert.equal(day('2026-12-07'), '7 Dec 2026');
  setProjectConventions({ locale: 'de-DE', timezone: 'America/Adak' });
  assert.equal(shortDay('2026-01-31'), '31. Jan.');
  assert.deepEqual(
    labelledDays([{ date: '2026-03-01', redemptions: 2 }]),
    [{ date: '2026-03-01', redemptions: 2, day: '1. März' }],
  );
  setProjectConventions({});
});
