/**
 * deploy/prometheus (alert rules and their unit tests) as promtool reads them, and the Grafana dashboard: every series
 * either queries is one the server's registry really exports, or one of Prometheus's own (`up`, the blackbox
 * exporter's `probe_success`), so a renamed metric fails here and not silently in production.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { createMetrics } from '../../server/src/observability/metrics.js';
import { repoRoot } from '../helpers/cli.js';
import { captureLogs } from '../helpers/logs.js';

const run = promisify(execFile);
const prometheusDir = join(repoRoot, 'deploy/prometheus');
const PROMETHEUS_OWN = new Set(['up', 'probe_success']);
const PROMQL_WORDS = new Set(
  [
    'sum',
    'min',
    'max',
    'avg',
    'count',
    'by',
    'on',
    'and',
    'or',
    'unless',
    'without',
    'rate',
    'increase',
    'time',
  ].concat(['vector', 'histogram_quantile', 'min_over_time', 'max_over_time', 'le', 'ignoring', 'group_left']),
);

/** The series names an expression reads: identifiers outside label matchers, legends and strings. */
function seriesIn(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\bby\s*\([^)]*\)|\bon\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)]
    .map((m) => m[0])
    .filter((word) => !PROMQL_WORDS.has(word) && !/^\d/.test(word));
}

/** Every series name the server's registry exposes, histograms with their _bucket, _sum and _count. */
async function exported(): Promise<Set<string>> {
  const metrics = createMetrics({
    logger: captureLogs('info').logger,
    queueDepth: async () => ({}),
    processMetrics: true,
  });
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (metric.type.toString() === 'histogram') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
    }
  }
  return names;
}

describe('deploy.monitoring', function () {
  this.timeout(180_000);

  it('promtool check rules and promtool test rules pass on the alerts', async () => {
    const checked = await run('promtool', ['check', 'rules', 'alerts.yml'], { cwd: prometheusDir });
    assert.match(checked.stdout, /SUCCESS: \d+ rules found/);
    const tested = await run('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: prometheusDir });
    assert.match(tested.stdout, /SUCCESS/);
  });

  it('every alert named in alerts.yml has a test that expects it to fire', () => {
    const rules = parse(readFileSync(join(prometheusDir, 'alerts.yml'), 'utf8')) as {
      groups: { rules: { alert: string }[] }[];
    };
    const tests = parse(readFileSync(join(prometheusDir, 'alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const firing = new Set(
      tests.tests.flatMap((t) =>
        t.alert_rule_test.filter((a) => (a.exp_alerts ?? []).length > 0).map((a) => a.alertname),
      ),
    );
    const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
    assert.deepEqual(
      alerts.filter((a) => !firing.has(a)),
      [],
    );
  });

  it('the alerts and the Grafana dashboard query only series the server exports', async () => {
    const names = await exported();
    const rules = parse(readFileSync(join(prometheusDir, 'alerts.yml'), 'utf8')) as {
      groups: { rules: { expr: string }[] }[];
    };
    const dashboard = JSON.parse(readFileSync(join(repoRoot, 'deploy/grafana/paygate.json'), 'utf8')) as {
      uid: string;
      panels: { title: string; targets: { expr: string }[] }[];
    };
    assert.equal(dashboard.uid, 'paygate');
    const exprs = [
      ...rules.groups.flatMap((g) => g.rules.map((r) => r.expr)),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
    ];
    assert.ok(dashboard.panels.length >= 10);
    const unknown = [...new Set(exprs.flatMap(seriesIn))].filter((n) => !names.has(n) && !PROMETHEUS_OWN.has(n));
    assert.deepEqual(unknown, []);
    // The parser sees the series of an expression (a typo would show up above, not vanish).
    assert.deepEqual(seriesIn('sum by (chain) (rate(paygate_chain_rpc_errors_total{chain="x"}[5m]))'), [
      'paygate_chain_rpc_errors_total',
    ]);
  });
});
