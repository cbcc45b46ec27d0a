import { useState } from 'preact/hooks';
import { useDashboard } from '../context';
import { Badge } from '../../kit/Badge.js';
import { FormError } from '../../kit/Field.js';
import { Loaded } from '../../kit/Loading.js';
import { RoleNotice } from '../../kit/RoleNotice.js';
import { Table, type Column } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { request, useAction, useLoad } from '../../kit/request.js';
import type { AuditEntry } from '../schemas';
import { describeAudit, describeTarget } from './parts/auditWords.js';

const PAGE = 50;

/**
 * The audit log (owners only): every change made for the merchant, newest first, as the server records it (who,
 * what in words, on what, mode, from where), paged with the server's cursor ("Load more"); a card per entry on a phone.
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

const COLUMNS: Column<AuditEntry>[] = [
  { label: 'Time', cell: (e) => <Time value={e.at} /> },
  {
    label: 'Who',
    cell: (e) => (
      <>
        {e.actor.label ?? `${e.actor.id} (deleted)`}{' '}
        <Badge>
          {e.actor.kind === 'api_key' ? 'API key' : e.actor.kind === 'operator' ? 'server command' : 'person'}
        </Badge>
      </>
    ),
  },
  {
    label: 'What',
    cell: (e) => {
      const target = describeTarget(e.target);
      return (
        <span class="wrap">
          {describeAudit(e)}
          {target ? <span class="muted"> · {target}</span> : null}
        </span>
      );
    },
  },
  { label: 'Mode', cell: (e) => (e.mode === null ? 'Both' : e.mode === 'live' ? 'Live' : 'Test') },
  { label: 'From', cell: (e) => e.ip ?? '—' },
];

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
            <Table
              label="Audit log entries"
              columns={COLUMNS}
              rows={entries}
              rowKey={(e) => e.id}
              rowData={(e) => ({ 'data-audit': e.id })}
            />
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
