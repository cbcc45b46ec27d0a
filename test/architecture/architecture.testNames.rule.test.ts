import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The naming rule of ARCHITECTURE.md ("Tests"): `test/<area>/<surface>.<operation>[.<outcome>…].test.ts`, where
 * `<surface>` is the area's name in camelCase, or starts with it when an area holds several surfaces (`sdkWallet`,
 * `sdkMerchant` in `sdk/`). A file that covers every outcome of one operation stops at the operation.
 */
const root = join(process.cwd(), 'test');

const camel = (folder: string) => folder.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

function nameProblem(path: string): string | null {
  const parts = path.split('/');
  if (parts.length !== 2) return 'must sit directly in an area folder: test/<area>/<file>';
  const [area, file] = parts as [string, string];
  const segments = file.slice(0, -'.test.ts'.length).split('.');
  if (segments.length < 2) return 'needs at least <surface>.<operation>';
  if (!segments.every((s) => /^[a-z][A-Za-z0-9]*$/.test(s))) return 'each segment is one camelCase word';
  if (!segments[0]!.startsWith(camel(area))) return `its surface must be "${camel(area)}" or start with it`;
  return null;
}

describe('test file names', () => {
  it('every test file follows test/<area>/<surface>.<operation>[.<outcome>…].test.ts', () => {
    const files = testFiles(root);
    assert.ok(files.length > 100, `found ${files.length} test files`);
    const problems = files.flatMap((f) => {
      const problem = nameProblem(f);
      return problem ? [`test/${f}: ${problem}`] : [];
    });
    assert.deepEqual(problems, []);
  });

  it('the rule refuses a name without an operation, a stray surface and a nested folder', () => {
    assert.equal(nameProblem('gateway/gateway.confirm.security.test.ts'), null);
    assert.equal(nameProblem('sdk/sdkWallet.pay.build.test.ts'), null);
    assert.equal(nameProblem('webhook-verifier/webhookVerifier.verify.test.ts'), null);
    assert.match(nameProblem('gateway/gateway.test.ts')!, /operation/);
    assert.match(nameProblem('chains/solana.localRpc.test.ts')!, /surface/);
    assert.match(nameProblem('gateway/deep/gateway.confirm.test.ts')!, /area folder/);
    assert.match(nameProblem('gateway/gateway.confirm-late.test.ts')!, /camelCase/);
  });
});
