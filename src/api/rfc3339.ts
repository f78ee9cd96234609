/**
 * Strict RFC 3339 `date-time` parsing (§5.6): `Date.parse` also accepts
 * forms RFC 3339 does not (no offset, `2026-02-30` rolled over), so the
 * fields are matched and range-checked here.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export interface ParsedDateTime {
  /** The instant, to the millisecond. */
  readonly date: Date;
  /** Whether the fraction had non-zero digits below the millisecond (no stored time can equal it). */
  readonly hasSubMillisecond: boolean;
  /** The value as it was sent, for messages: `date` may be a different spelling of the instant, or cut to the millisecond. */
  readonly text: string;
}

export function parseRfc3339(value: string): ParsedDateTime | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] ?? '';
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  date.setTime(date.getTime() - offsetMinutes * 60_000);
  return { date, hasSubMillisecond: /[1-9]/.test(fraction.slice(3)), text: value };
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
