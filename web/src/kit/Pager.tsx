/**
 * Previous / Next over a cursor list: the caller keeps the stack of cursors. A list that fits on one page has no
 * pager at all (an empty list with "Page 1" and two disabled buttons says nothing).
 */
export function Pager(props: {
  page: number;
  hasMore: boolean;
  busy: boolean;
  onPrevious(): void;
  onNext(): void;
  label: string;
}) {
  if (props.page === 0 && !props.hasMore) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button
        type="button"
        class="button secondary"
        disabled={props.busy || props.page === 0}
        onClick={props.onPrevious}
      >
        Previous
      </button>
      <span class="muted">Page {props.page + 1}</span>
      <button type="button" class="button secondary" disabled={props.busy || !props.hasMore} onClick={props.onNext}>
        Next
      </button>
    </nav>
  );
}
