import { useState } from 'preact/hooks';
import { useDashboard } from '../context';
import { Badge } from '../../kit/Badge.js';
import { FormError } from '../../kit/Field.js';
import { Loaded } from '../../kit/Loading.js';
import { RoleNotice } from '../../kit/RoleNotice.js';
import { Time } from '../../kit/Time.js';
import { request, useAction, useLoad } from '../../kit/request.js';
import type { AuditEntry } from '../schemas';

const PAGE = 50;

/**
 * The audit log (owners only): every change made for the merchant, newest first, as the server records it (who,
 * what, target, mode, from where, non-secret details), paged with the server's cursor ("Load more").
 */
export function AuditLog() {
  const { role } = useDashboard();
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title" tabIndex={-1}>
        Audit log
      </h1>
      {role === 'owner' ? <AuditTable /> : <RoleNotice role={role} needs="Only owners can read the audit log." />}
    </section>
  );
}

function AuditTable() {
  const { api } = useDashboard();
  const [first] = useLoad(
    () => request(api.GET('/v1/dashboard/audit-log', { params: { query: { limit: PAGE } } })),
    [],
  );
  const [more, setMore] = useState<{ entries: AuditEntry[]; hasMore: boolean; nextCursor: string | null } | null>(null);
  const next = useAction(async (cursor: string) => {
    const page = await request(
      api.GET('/v1/dashboard/audit-log', { params: { query: { limit: PAGE, startingAfter: cursor } } }),
    );
    setMore({ entries: [...(more?.entries ?? []), ...page.data], hasMore: page.hasMore, nextCursor: page.nextCursor });
  });

  return (
    <Loaded load={first}>
      {(page) => {
        const entries = [...page.data, ...(more?.entries ?? [])];
        const hasMore = more ? more.hasMore : page.hasMore;
        const cursor = more ? more.nextCursor : page.nextCursor;
        if (entries.length === 0) return <p class="muted">No changes have been recorded for this merchant yet.</p>;
        return (
          <>
            {/* Focusable, so a keyboard can scroll the table sideways on a narrow screen. */}
            <div class="table-wrap" role="region" aria-label="Audit log entries" tabIndex={0}>
              <table>
                <caption class="visually-hidden">Changes made for this merchant, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Actor</th>
                    <th scope="col">Action</th>
                    <th scope="col">Target</th>
                    <th scope="col">Mode</th>
                    <th scope="col">Address</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr key={e.id} data-audit={e.id}>
                      <td>
                        <Time value={e.at} />
                      </td>
                      <td>
                        {e.actor.label ?? `${e.actor.id} (deleted)`}{' '}
                        <Badge>{e.actor.kind === 'api_key' ? 'API key' : e.actor.kind}</Badge>
                      </td>
                      <td>
                        <code>{e.action}</code>
                      </td>
                      <td class="wrap">{e.target === null ? '—' : <code>{e.target}</code>}</td>
                      <td>{e.mode ?? '—'}</td>
                      <td>{e.ip ?? '—'}</td>
                      <td class="wrap">{e.details === null ? '—' : <code>{JSON.stringify(e.details)}</code>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <FormError failure={next.failure} />
            {hasMore && (
              <button
                type="button"
                class="button secondary"
                disabled={next.busy}
                onClick={() => cursor && void next.run(cursor)}
              >
                {next.busy ? 'Loading…' : 'Load more'}
              </button>
            )}
          </>
        );
      }}
    </Loaded>
  );
}
