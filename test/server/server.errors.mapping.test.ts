import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statusByCode } from '@paygate/server';
import { errorCodeValues } from '../../server/src/generated/gateway.js';

describe('server.errors.mapping', () => {
  it('maps every contract code to a status, and no other', () => {
    assert.deepEqual(Object.keys(statusByCode).sort(), [...errorCodeValues].sort());
  });

  it('agrees with the table in docs/decisions.md', () => {
    const decisions = readFileSync(join(process.cwd(), 'docs/decisions.md'), 'utf8');
    const rows = new Map([...decisions.matchAll(/^\| `([a-z_]+)` \| (\d{3})/gm)].map((m) => [m[1]!, Number(m[2])]));
    for (const code of errorCodeValues) {
      assert.equal(rows.get(code), statusByCode[code], `decisions.md status of ${code}`);
    }
  });
});
