import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apis, bundledText, loadBundled, type Json } from '../helpers/contracts.js';

// The spec is vendored in docs/spec so the check runs from a clean clone.
const spec = readFileSync(join(process.cwd(), 'docs/spec/payment-gateway-spec.md'), 'utf8');

function section(title: string): string {
  const start = spec.indexOf(title);
  assert.ok(start >= 0, `spec has "${title}"`);
  const next = spec.indexOf('\n#', start + title.length);
  return spec.slice(start, next === -1 ? undefined : next);
}

const ticks = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

function enumsOf(node: Json): string[][] {
  const found: string[][] = [];
  const walk = (n: Json): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      if (Array.isArray(n.enum)) found.push(n.enum.map(String));
      Object.values(n).forEach(walk);
    }
  };
  walk(node);
  return found;
}

function headerParams(node: Json): Set<string> {
  const names = new Set<string>();
  const walk = (n: Json): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      if (n.in === 'header' && typeof n.name === 'string') names.add(n.name.toLowerCase());
      if (n.headers && typeof n.headers === 'object' && !Array.isArray(n.headers))
        for (const h of Object.keys(n.headers)) names.add(h.toLowerCase());
      Object.values(n).forEach(walk);
    }
  };
  walk(node);
  return names;
}

const docs = Object.fromEntries(apis.map((api) => [api, loadBundled(api)])) as Record<(typeof apis)[number], Json>;
const allEnums = apis.flatMap((api) => enumsOf(docs[api]));
const hasEnumWith = (values: string[]) => allEnums.some((e) => values.every((v) => e.includes(v)));

describe('contracts.coverage', () => {
  it('the ErrorCode enum is exactly the 35 codes of the spec, in both public contracts', () => {
    const line = spec.split('\n').find((l) => l.startsWith('Error codes:'));
    const codes = ticks(line ?? '');
    assert.equal(codes.length, 35);
    for (const api of ['gateway', 'merchant'] as const) {
      const schemas = (docs[api] as { components: { schemas: Record<string, { enum: string[] }> } }).components.schemas;
      assert.deepEqual([...schemas.ErrorCode!.enum].sort(), [...codes].sort(), `${api} ErrorCode`);
    }
  });

  it('every event type of the spec is a webhook and a WebhookEventType value', () => {
    const types = [...new Set(ticks(section('## Events')).filter((t) => /^payment\.[a-z]+$/.test(t)))];
    assert.equal(types.length, 7);
    // Paygate's own opt-in event types (docs/decisions.md §26.26, §30.12): webhooks and PaymentOptInEventType /
    // InvoiceEventType values that the spec does not list. Only these are allowed besides the spec's.
    const paygateOptInTypes = ['payment.partially_paid', 'invoice.paid', 'invoice.partially_paid'];
    const webhooks = Object.keys((docs.merchant as { webhooks: Record<string, unknown> }).webhooks);
    assert.deepEqual([...webhooks].sort(), [...types, ...paygateOptInTypes].sort());
    assert.ok(hasEnumWith(types), 'an enum lists all seven event types');
    assert.ok(hasEnumWith(['payment.partially_paid']), 'PaymentOptInEventType lists the opt-in payment type');
    assert.ok(hasEnumWith(['invoice.paid', 'invoice.partially_paid']), 'InvoiceEventType lists the invoice types');
  });

  it('every status value of the spec is in a contract enum', () => {
    const gateway = ticks(section('### Gateway payment statuses')).filter((t) => /^[a-z_]+$/.test(t));
    assert.deepEqual(gateway, ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled']);
    const merchant = [...section('### Merchant interface statuses').matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
    assert.deepEqual(merchant, ['pending', 'processing', 'succeeded', 'failed', 'expired']);
    assert.ok(hasEnumWith(gateway), 'PaymentStatus');
    assert.ok(hasEnumWith(merchant), 'MerchantPaymentStatus');
    const fieldTypes = ticks(section('### CollectData')).filter((t) => ['text', 'date', 'checkbox'].includes(t));
    assert.ok(hasEnumWith(fieldTypes), 'CollectDataField type');
  });

  it('every header of the spec is a documented parameter', () => {
    const named = new Set(
      ticks(spec).filter((t) => /^([A-Z][a-z]+(-[A-Z][a-z]+)+|webhook-[a-z]+)$/.test(t) && t !== 'Content-Type'),
    );
    for (const h of [
      'Api-Key',
      'App-Id',
      'Client-Id',
      'Svc-Version',
      'Sdk-Name',
      'Sdk-Version',
      'Sdk-Platform',
      'Merchant-Id',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]) {
      assert.ok(named.has(h), `spec names ${h}`);
    }
    const documented = new Set(apis.flatMap((api) => [...headerParams(docs[api])]));
    const missing = [...named].filter((h) => !documented.has(h.toLowerCase()));
    assert.deepEqual(missing, []);
  });

  it('every limit of the spec is encoded or stated in the contracts', () => {
    const gateway = bundledText('gateway');
    const merchant = bundledText('merchant');
    assert.match(gateway, /maxLength: 65536/, 'option id length');
    assert.match(gateway, /maxLength: 200/, 'pob/por address length');
    assert.match(gateway, /minLength: 1/, 'fullName min length');
    const stated: [RegExp, string][] = [
      [/15 s(econds)?\b/, 'acknowledgment time'],
      [/\b8 attempts|eight attempts/i, 'webhook attempts'],
      [/28 hours/, 'automatic retry span'],
      [/14 days/, 'replay reach'],
      [/5 days/, 'endpoint disabled after'],
      [/24 hours/, 'signing-secret rotation overlap'],
      [/5 minutes/, 'signature timestamp tolerance'],
      [/one (endpoint )?per mode/i, 'endpoints per mode'],
      [/pollInMs/, 'status polling interval'],
      [
        /52\.215\.16\.239[\s\S]*54\.216\.8\.72[\s\S]*63\.33\.109\.123[\s\S]*2a05:d028:17:8000::\/56/,
        'source addresses',
      ],
    ];
    const missing = stated.filter(([re]) => !re.test(merchant)).map(([, what]) => what);
    assert.deepEqual(missing, []);
  });
});
