/** The attempts of one delivery: when, HTTP status, latency, error, and the first 4 KB of the answer. */
import { StatusBadge } from '../../../kit/Badge.js';
import { Time } from '../../../kit/Time.js';
import type { WebhookAttempt } from './webhookTypes.js';

export function AttemptList({ attempts, pruned = false }: { attempts: readonly WebhookAttempt[]; pruned?: boolean }) {
  // Past the server's retention window the attempts are gone; the delivery's status and count above still hold.
  if (pruned && attempts.length === 0)
    return <p class="muted">The attempts of this delivery are past the retention window and were removed.</p>;
  if (attempts.length === 0) return <p class="muted">No attempt has finished yet.</p>;
  return (
    <ol class="attempts">
      {attempts.map((a) => (
        <li key={a.attempt} class="attempt">
          <div class="attempt-head">
            <span>Attempt {a.attempt}</span>
            <StatusBadge status={a.outcome} />
            <Time value={a.startedAt} />
            <span class="num">{a.status === null ? 'no HTTP status' : `HTTP ${a.status}`}</span>
            <span class="num">{a.latencyMs} ms</span>
          </div>
          {a.error ? <p class="attempt-error">Error: {a.error}</p> : null}
          {a.responseBody !== null && a.responseBody !== '' ? (
            <details>
              <summary>Response body (first 4 KB)</summary>
              <pre class="pre">{a.responseBody}</pre>
            </details>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
