/**
 * The process log's destination (observability/logger.ts `batchedLines`): the lines of one event-loop turn are
 * written together once the turn is over, byte for byte what pino's own destination writes, and a process that
 * exits before then still writes them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { batchedLines } from '../../server/src/observability/logger.js';
import { eventually } from '../helpers/wait.js';

describe('ops.logs.batched', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-logs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the lines of a turn after it, together and in order, as pino’s destination would write them', async () => {
    const batchedFile = join(dir, 'batched.log');
    const plainFile = join(dir, 'plain.log');
    const batchedFd = openSync(batchedFile, 'w');
    const plainFd = openSync(plainFile, 'w');
    // A fixed time, so the two loggers' lines can be compared byte for byte.
    const options = { base: { pid: 1, hostname: 'h' }, timestamp: () => ',"time":1' };
    const batched = pino(options, batchedLines(batchedFd));
    const plain = pino(options, pino.destination({ dest: plainFd, sync: true }));
    try {
      for (const logger of [batched, plain]) {
        for (let i = 0; i < 50; i++)
          logger.info({ reqId: `r${i}`, route: '/v1/x/{id}', status: 200, ms: 1.5 }, 'request');
        logger.child({ reqId: 'c' }).warn({ err: new Error('boom') }, 'failed');
      }
      assert.equal(readFileSync(batchedFile, 'utf8'), '', 'nothing is written during the turn');
      await eventually('the turn’s lines to be written', () => readFileSync(batchedFile, 'utf8').length > 0);
      const written = readFileSync(batchedFile, 'utf8');
      assert.equal(written, readFileSync(plainFile, 'utf8'));
      assert.equal(written.split('\n').length, 52);
    } finally {
      closeSync(batchedFd);
      closeSync(plainFd);
    }
  });

  it('a process that exits before the turn is over still writes its lines', () => {
    const logger = resolve('server/src/observability/logger.ts');
    const script = [
      `const { batchedLines } = await import(${JSON.stringify(logger)});`,
      `const { pino } = await import('pino');`,
      `const log = pino({}, batchedLines(1));`,
      `log.info({ n: 1 }, 'first'); log.info({ n: 2 }, 'last');`,
      `process.exit(3);`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: resolve('server'),
      encoding: 'utf8',
    });
    assert.equal(run.status, 3, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; n: number });
    assert.deepEqual(
      lines.map((l) => [l.msg, l.n]),
      [
        ['first', 1],
        ['last', 2],
      ],
    );
  });
});
