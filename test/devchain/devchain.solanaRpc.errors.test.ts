/**
 * The local endpoint's transaction-error names follow LiteSVM's numeric enums by position; this compares them with
 * the enums as the installed litesvm declares them, so an upgrade that reorders or adds variants fails here rather
 * than mislabelling an error on the wire.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { INSTRUCTION_ERROR_NAMES, TRANSACTION_ERROR_NAMES } from '@paygate/devchain';

function declaredEnum(source: string, name: string): string[] {
  const body = new RegExp(`export declare const enum ${name} \\{([^}]*)\\}`).exec(source)?.[1];
  assert.ok(body, `litesvm declares ${name}`);
  return [...body.matchAll(/(\w+)\s*=\s*(\d+)/g)].map((m, i) => {
    assert.equal(Number(m[2]), i, `${name}.${m[1]} is ${i}`);
    return m[1]!;
  });
}

describe('local Solana RPC: transaction error names', function () {
  const require = createRequire(join(process.cwd(), 'server/package.json'));
  const typings = readFileSync(join(require.resolve('litesvm'), '../internal.d.ts'), 'utf8');

  it('match LiteSVM’s TransactionErrorFieldless order', function () {
    assert.deepEqual([...TRANSACTION_ERROR_NAMES], declaredEnum(typings, 'TransactionErrorFieldless'));
  });

  it('match LiteSVM’s InstructionErrorFieldless order', function () {
    assert.deepEqual([...INSTRUCTION_ERROR_NAMES], declaredEnum(typings, 'InstructionErrorFieldless'));
  });
});
