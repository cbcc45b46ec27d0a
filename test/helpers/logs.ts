/** The server's real logger (redaction and all), writing into memory so a test can read every line. */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '@paygate/server';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, raw. */
  text(): string;
  lines(): Record<string, unknown>[];
}

export function captureLogs(level: 'trace' | 'debug' | 'info' = 'trace'): CapturedLogs {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger({ logLevel: level, logFormat: 'json' }, stream);
  const text = () => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
