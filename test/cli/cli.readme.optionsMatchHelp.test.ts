import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCliInProcess } from '../helpers/cli.js';

/**
 * The README's CLI table is what an operator reads instead of `--help`; it drifted once (it kept `--icon-url` after
 * the option was removed, and lacked `--settlement-mode`). Each row must name exactly the options its command's help
 * lists, apart from the ones every command takes.
 */
const COMMON_OPTIONS = new Set(['--help', '--json']);

interface Row {
  line: string;
  command: string[];
  options: Set<string>;
}

function readmeRows(): Row[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  return readme
    .split('\n')
    .filter((line) => line.startsWith('| `paygate '))
    .map((line) => {
      const synopsis = /^\| `([^`]+)`/.exec(line)![1]!.replace(/\\\|/g, '|');
      // The command is its leading words; "enable|disable" rows document both, whose help is the same page.
      const command = synopsis
        .split(' ')
        .slice(1)
        .filter((word, i, words) => words.slice(0, i + 1).every((w) => /^[a-z][a-z|-]*$/.test(w)))
        .map((word) => word.split('|')[0]!);
      return { line, command, options: optionsIn(synopsis) };
    });
}

function optionsIn(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]).filter((o) => !COMMON_OPTIONS.has(o)),
  );
}

/** A help page shared by several subcommands (`fees list` and `fees invoice`) is read from the command's own usage line. */
function ownUsage(help: string, command: string): string {
  const usages = help.split('\n').filter((line) => /^(Usage: |\s+)paygate /.test(line));
  const own = usages.filter((line) =>
    line
      .trim()
      .replace(/^Usage: /, '')
      .startsWith(`paygate ${command}`),
  );
  return own.length > 0 && own.length < usages.length ? own.join('\n') : help;
}

describe('cli.readme', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-cli-readme-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'paygate.sqlite')}` };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('documents every command of the CLI table with exactly the options its --help lists', async () => {
    const rows = readmeRows();
    assert.ok(rows.length >= 30, `the README's CLI table has ${rows.length} rows`);
    // Several rows may document one command (rotate-encryption-key and its --check): their options are pooled.
    const documented = new Map<string, Set<string>>();
    for (const row of rows) {
      const key = row.command.join(' ');
      documented.set(key, new Set([...(documented.get(key) ?? []), ...row.options]));
    }
    const differences: string[] = [];
    for (const [command, options] of documented) {
      const help = await runCliInProcess([...command.split(' '), '--help'], env);
      assert.equal(help.code, 0, `paygate ${command} --help: ${help.stderr}`);
      const listed = optionsIn(ownUsage(help.stdout, command));
      const missing = [...listed].filter((o) => !options.has(o));
      const stale = [...options].filter((o) => !listed.has(o));
      if (missing.length || stale.length)
        differences.push(
          `paygate ${command}: README lacks ${missing.join(' ') || '-'}; help lacks ${stale.join(' ') || '-'}`,
        );
    }
    assert.deepEqual(differences, []);
  });
});
