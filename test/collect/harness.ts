/**
 * A real server for the data-collection form: the gateway harness (runtime, app, merchant, payments) with every log
 * line captured, so a test can assert that the buyer's data never reaches a log.
 */
import { collectFormUrl } from '../../server/src/collect/index.js';
import { startGatewayHarness, type GatewayHarness } from '../gateway/harness.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';

export interface CollectHarness extends GatewayHarness {
  logs: CapturedLogs;
  /** The form's address for a payment, on this server (what collectDataFor answers with this base URL). */
  formUrl(paymentId: string): string;
  /** The form's path and query, for fetch. */
  formPath(paymentId: string): string;
}

export async function startCollectHarness(options: { config?: Record<string, string> } = {}): Promise<CollectHarness> {
  const logs = captureLogs('trace');
  const harness = await startGatewayHarness({ config: options.config, logger: logs.logger });
  const formUrl = (paymentId: string) =>
    collectFormUrl(paymentId, {
      publicBaseUrl: harness.server.url,
      optionSecret: harness.runtime.config.optionSecret,
    });
  return {
    ...harness,
    logs,
    formUrl,
    formPath: (paymentId) => formUrl(paymentId).slice(harness.server.url.length),
  };
}

/** A buyer's answer the schema accepts. */
export const ada = {
  fullName: 'Ada Lovelace',
  dob: '1815-12-10',
  porCountry: 'GB',
  porAddress: '12 St James Square, London',
  tosConfirmed: true,
} as const;
