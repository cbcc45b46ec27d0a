/** A time from the contract: Unix seconds (the dashboard API) or an ISO string (payment snapshots). */
export type TimeValue = number | string;

export function toDate(value: TimeValue): Date {
  return typeof value === 'number' ? new Date(value * 1000) : new Date(value);
}

/** "2026-11-24 14:05:09 UTC", for titles. */
export function formatUtc(value: TimeValue): string {
  const iso = toDate(value).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function formatLocalTime(value: TimeValue, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(toDate(value));
}

/** A moment in the user's locale, with its UTC value in the title; a dash for none. */
export function Time(props: { value: TimeValue | null | undefined }) {
  if (props.value === null || props.value === undefined) {
    return (
      <span class="muted" aria-label="never">
        —
      </span>
    );
  }
  return (
    <time dateTime={toDate(props.value).toISOString()} title={formatUtc(props.value)}>
      {formatLocalTime(props.value)}
    </time>
  );
}
