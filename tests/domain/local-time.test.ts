import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { localDate, localTime } from '../../src/domain/validity/validity.ts';

// localDate/localTime read a zone's offset once per quarter hour and do the rest with arithmetic. They
// must agree with Intl read directly for every instant: zones with half- and quarter-hour offsets, with
// 30-minute daylight saving, both hemispheres, and instants around their changes.

const ZONES = ['Europe/Berlin', 'America/New_York', 'America/St_Johns', 'Asia/Kathmandu', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Pacific/Apia', 'UTC', 'GMT+05:30', 'GMT-03:00'];
const GMT_OFFSET = /^GMT([+-])(\d{2}):(\d{2})$/;

function direct(at: Date, timeZone: string): { date: string; dayOfWeek: number; minutes: number } {
  const offset = GMT_OFFSET.exec(timeZone);
  if (offset) {
    const sign = offset[1] === '-' ? -1 : 1;
    const shifted = new Date(at.getTime() + sign * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000);
    return { date: shifted.toISOString().slice(0, 10), dayOfWeek: shifted.getUTCDay(), minutes: shifted.getUTCHours() * 60 + shifted.getUTCMinutes() };
  }
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  return { date: `${parts.year}-${parts.month}-${parts.day}`, dayOfWeek: days.indexOf(parts.weekday ?? ''), minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

function check(at: Date, timeZone: string): void {
  const want = direct(at, timeZone);
  const time = localTime(at, timeZone);
  assert.deepEqual({ date: localDate(at, timeZone), dayOfWeek: time.dayOfWeek, minutes: time.minutes }, want, `${at.toISOString()} in ${timeZone}`);
}

describe('local calendar position of an instant', () => {
  test('agrees with Intl at random instants in every kind of zone', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const zone of ZONES) {
      for (let i = 0; i < 400; i++) check(new Date(Date.UTC(1960, 0, 1) + Math.floor(random() * 100 * 365 * 86_400_000)), zone);
    }
  });

  test('agrees with Intl minute by minute around offset changes and midnights', () => {
    const around = [
      Date.UTC(2026, 2, 29, 1, 0), // Berlin: summer time starts
      Date.UTC(2026, 9, 25, 1, 0), // Berlin: ends
      Date.UTC(2026, 2, 8, 7, 0), // New York and St. John's: starts
      Date.UTC(2026, 3, 4, 15, 0), // Lord Howe: half an hour back
      Date.UTC(2026, 3, 4, 14, 0), // Chatham: ends
      Date.UTC(2026, 0, 1, 18, 15), // Kathmandu: local midnight
      Date.UTC(2026, 5, 30, 23, 59),
    ];
    for (const zone of ZONES) {
      for (const centre of around) {
        for (let minute = -90; minute <= 90; minute++) check(new Date(centre + minute * 60_000 + 17_000), zone);
      }
    }
  });
});
