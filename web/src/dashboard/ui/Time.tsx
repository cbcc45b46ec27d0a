/** A moment (Unix seconds) in the user's locale, with its UTC value in the title; a dash for none. */
export function Time(props: { seconds: number | null | undefined }) {
  if (props.seconds === null || props.seconds === undefined) return <span aria-label="never">—</span>;
  const date = new Date(props.seconds * 1000);
  return (
    <time dateTime={date.toISOString()} title={`${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}
