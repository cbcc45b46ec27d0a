import { useState } from 'preact/hooks';
import type { Load } from './request.js';

/** A cursor list's position: the stack of cursors read so far (the API pages forward only). */
export interface Cursors {
  /** The cursor of the page shown (undefined: the first page). */
  cursor: string | undefined;
  page: number;
  next(cursor: string | null | undefined): void;
  previous(): void;
  /** Back to the first page (the filters changed). */
  reset(): void;
}

export function useCursors(): Cursors {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: stack[stack.length - 1],
    page: stack.length - 1,
    next: (cursor) => {
      if (cursor) setStack([...stack, cursor]);
    },
    previous: () => setStack(stack.slice(0, -1)),
    reset: () => setStack([undefined]),
  };
}

/**
 * Previous / Next over a cursor list. A list that fits on one page has no pager at all (an empty list with "Page 1"
 * and two disabled buttons says nothing).
 */
export function Pager(props: {
  label: string;
  cursors: Cursors;
  load: Load<{ hasMore: boolean; nextCursor: string | null }>;
}) {
  const { cursors, load } = props;
  const list = load.state === 'ready' ? load.data : null;
  const busy = load.state === 'loading';
  if (cursors.page === 0 && !list?.hasMore) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="button secondary" disabled={busy || cursors.page === 0} onClick={cursors.previous}>
        Previous
      </button>
      <span class="muted">Page {cursors.page + 1}</span>
      <button
        type="button"
        class="button secondary"
        disabled={busy || !list?.hasMore}
        onClick={() => cursors.next(list?.nextCursor)}
      >
        Next
      </button>
    </nav>
  );
}
