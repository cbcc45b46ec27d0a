import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// A child process without process.getBuiltinModule stands in for Bun/Deno/edge runtimes without node:crypto.
const script = `
delete process.getBuiltinModule;
const { Webhook } = await import('@paygate/webhook-verifier');
const wh = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { now: () => 1614265330 });
const headers = new Headers({
  'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  'webhook-timestamp': '1614265330',
  'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
});
const result = {};
try { wh.verify('{"test": 2432232314}', headers); result.sync = 'no error'; } catch (e) { result.sync = e.message; }
result.signAsync = await wh.signAsync('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
result.verifyAsync = await wh.verifyAsync(new TextEncoder().encode('{"test": 2432232314}'), headers);
try { await wh.verifyAsync('{"test": 2432232315}', headers); } catch (e) { result.tampered = e.reason; }
console.log(JSON.stringify(result));
`;

describe('webhookVerifier.runtime without node:crypto', () => {
  it('verifies and signs asynchronously, and the sync verify explains what to use instead', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--conditions=@paygate/source', '--input-type=module', '-e', script],
      { cwd: process.cwd() },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!);
    assert.match(result.sync, /node:crypto/);
    assert.match(result.sync, /verifyAsync/);
    assert.equal(result.signAsync, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    assert.deepEqual(result.verifyAsync, { test: 2432232314 });
    assert.equal(result.tampered, 'no_matching_signature');
  });
});
