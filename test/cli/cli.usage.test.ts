import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectFailure, runCli, runCliInProcess, type CliResult } from '../helpers/cli.js';

describe('cli.usage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-cli-usage-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'paygate.sqlite')}` };
  const run = (...args: string[]) => runCliInProcess(args, env);
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('usage errors exit 2 with one line', () => {
    const cases: [string, string[], RegExp][] = [
      ['no command', [], /a command is required \(see "paygate --help"\)/],
      ['an unknown command', ['frobnicate'], /unknown command "frobnicate"/],
      [
        'an unknown admin command',
        ['admin', 'create-widget'],
        /unknown admin command "create-widget" \(see "paygate admin --help"\)/,
      ],
      [
        'an unknown option',
        ['admin', 'create-partner', '--name', 'x', '--colour', 'red'],
        /--colour.*\(see "paygate admin create-partner --help"\)/,
      ],
      ['a missing required option', ['admin', 'create-partner', '--json'], /--name is required/],
      ['a bad mode', ['admin', 'create-wallet-key', '--mode', 'prod'], /--mode must be test or live/],
      ['a missing argument', ['admin', 'rotate-key'], /expected 1 argument/],
      [
        'a fee percent that is not a fraction',
        ['admin', 'create-merchant', '--partner', 'p', '--name', 'n', '--fee-base', '30', '--fee-percent', '2.9%'],
        /--fee-percent takes <n>\/<d>/,
      ],
    ];
    // Usage errors never touch the database, so the commands can run side by side.
    let results: CliResult[] = [];
    before(async () => {
      results = await Promise.all(cases.map(([, args]) => run(...args)));
    });
    cases.forEach(([what, , pattern], i) => {
      it(what, () => {
        expectFailure(results[i]!, 2, pattern);
      });
    });
  });

  it('--help prints the synopsis and exits 0 without touching the database', async () => {
    const helps = [
      ['--help'],
      ['start', '-h'],
      ['migrate', '-h'],
      ['admin', '-h'],
      ['admin', 'create-merchant', '--help'],
      ['admin', 'bootstrap', '-h', '--json'],
    ];
    const results = await Promise.all(helps.map((args) => run(...args)));
    results.forEach((result, i) => {
      assert.equal(result.code, 0, helps[i]!.join(' '));
      assert.match(result.stdout, /^Usage: paygate/);
      assert.equal(result.stderr, '');
    });
    assert.ok(!existsSync(join(dir, 'paygate.sqlite')));
  });

  // The cases above run in this process; the bin's own part is to turn the result into the process's exit and output.
  it('the bin exits 2 with one line for a usage error and 0 with the synopsis for --help', async () => {
    const [usage, help] = await Promise.all([runCli([], env), runCli(['--help'], env)]);
    expectFailure(usage, 2, /a command is required \(see "paygate --help"\)/);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: paygate/);
    assert.equal(help.stderr, '');
  });
});
