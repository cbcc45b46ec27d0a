/**
 * The overview's first steps for a merchant starting in test mode (issue 31 finding 14): an API key, a webhook
 * endpoint, a test payment, each marked done or to do from what the server holds, each linking to where it is done.
 * Shown to a role that may do them (developer and up) until all three are done; a read it may not make hides it.
 */
import { useDashboard } from '../../context.js';
import { FailureError } from '../../../kit/failure.js';
import { request, useLoad } from '../../../kit/request.js';

interface Step {
  done: boolean;
  title: string;
  how: string;
  path: string;
}

export function FirstSteps({ hasTestPayment }: { hasTestPayment: boolean }) {
  const { api, mode, role, navigate } = useDashboard();
  const allowed = mode === 'test' && role !== 'viewer';
  const [load] = useLoad(async () => {
    if (!allowed) return null;
    const keys = await request(api.GET('/v1/dashboard/api-keys'));
    const endpoint = await request(api.GET('/v1/dashboard/webhook-endpoint')).then(
      () => true,
      (err: unknown) => {
        if (err instanceof FailureError && err.failure.status === 404) return false;
        throw err;
      },
    );
    return { hasKey: keys.data.some((k) => k.mode === 'test' && k.revokedAt === null), endpoint };
  }, [api, allowed]);
  if (load.state !== 'ready' || load.data === null) return null;
  const steps: Step[] = [
    {
      done: load.data.hasKey,
      title: 'Create an API key',
      how: 'Your server creates payments with a test key.',
      path: '/dashboard/api-keys',
    },
    {
      done: load.data.endpoint,
      title: 'Add a webhook endpoint',
      how: 'Paygate tells your server when a payment succeeds.',
      path: '/dashboard/webhooks',
    },
    {
      done: hasTestPayment,
      title: 'Make a test payment',
      how: 'Create one below, or from your server with the test key, and pay it on its checkout.',
      path: '/dashboard/payments',
    },
  ];
  if (steps.every((s) => s.done)) return null;
  return (
    <section class="card" aria-labelledby="first-steps-title">
      <h2 id="first-steps-title">First steps</h2>
      <ol class="checklist" aria-labelledby="first-steps-title">
        {steps.map((s) => (
          <li key={s.title} class={s.done ? 'done' : undefined}>
            <span class="visually-hidden">{s.done ? 'Done: ' : 'To do: '}</span>
            <a
              href={s.path}
              onClick={(e) => {
                e.preventDefault();
                navigate(s.path);
              }}
            >
              {s.title}
            </a>{' '}
            <span class="muted">{s.how}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
