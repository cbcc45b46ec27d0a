/** A payment's timeline: transitions and events, each event with its webhook deliveries and their attempts. */
import { deliveryStatusWord, deliveryTriggerWord, paymentStatusWord } from '../parts/statusWords.js';
import { StatusBadge } from '../../../kit/Badge.js';
import { FormError } from '../../../kit/Field.js';
import { Loaded } from '../../../kit/Loading.js';
import { loaded, useAction, useLoad } from '../../../kit/request.js';
import { Time } from '../../../kit/Time.js';
import { useDashboard } from '../../context.js';
import { AttemptList } from '../parts/AttemptList.js';
import { getTimeline, withNextPage, type TimelineEntry } from '../parts/requests.js';

export function Timeline(props: { paymentId: string; version: number }) {
  const { api, mode } = useDashboard();
  const [load, , show] = useLoad(() => getTimeline(api, props.paymentId), [api, props.paymentId, mode, props.version]);
  const timeline = loaded(load);
  // A payment resent many times has more deliveries than one page; the rest load on demand.
  const more = useAction(async () => {
    if (!timeline?.nextCursor) return;
    show(withNextPage(timeline, await getTimeline(api, props.paymentId, timeline.nextCursor)));
  });
  return (
    <section class="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <Loaded load={load} what="the timeline">
        {({ entries }) =>
          entries.length === 0 ? (
            <p class="empty">Nothing happened to this payment yet.</p>
          ) : (
            <ol class="timeline">
              {entries.map((entry, i) => (
                <Entry key={i} entry={entry} />
              ))}
            </ol>
          )
        }
      </Loaded>
      <FormError failure={more.failure} />
      {timeline?.hasMore ? (
        <button type="button" class="button secondary" disabled={more.busy} onClick={() => void more.run()}>
          Show more deliveries
        </button>
      ) : null}
    </section>
  );
}

function Entry({ entry }: { entry: TimelineEntry }) {
  return (
    <li class="timeline-entry">
      <div class="timeline-head">
        <Time value={entry.at} />{' '}
        {entry.kind === 'transition' ? (
          <span>
            Status{' '}
            <StatusBadge status={entry.status ?? 'unknown'} label={paymentStatusWord(entry.status ?? 'unknown')} />
          </span>
        ) : (
          <span>
            Event <code>{entry.event?.type}</code>{' '}
            <code class="muted" title="event id">
              {entry.event?.id}
            </code>
          </span>
        )}
      </div>
      {entry.deliveries && entry.deliveries.length > 0 ? (
        <ul class="deliveries">
          {entry.deliveries.map((d) => (
            <li key={d.id}>
              <details>
                <summary>
                  Delivery <code>{d.id}</code> ({deliveryTriggerWord(d.trigger)}){' '}
                  <StatusBadge status={d.status} label={deliveryStatusWord(d)} />, {d.attemptCount}{' '}
                  {d.attemptCount === 1 ? 'attempt' : 'attempts'}
                </summary>
                <AttemptList attempts={d.attempts ?? []} pruned={d.attemptsPruned === true} />
              </details>
            </li>
          ))}
        </ul>
      ) : entry.kind === 'event' ? (
        <p class="muted">No webhook delivery (no endpoint wanted this event).</p>
      ) : null}
    </li>
  );
}
