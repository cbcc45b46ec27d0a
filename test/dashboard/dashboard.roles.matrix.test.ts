import assert from 'node:assert/strict';
import { OPERATION_ROLES, roleAllows, type Access, type Role } from '../../server/src/users/roles.js';
import { loadBundled, type JsonObject } from '../helpers/contracts.js';
import { startHarness, type Harness } from '../merchant/harness.js';
import { callAs, createPerson, sessionFor, type Person } from './people.js';

interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  hasBody: boolean;
}

/** Every operation of the dashboard contract, with its path params filled with dummies of a plausible form. */
function contractOperations(): ContractOperation[] {
  const doc = loadBundled('dashboard');
  const paths = doc.paths as Record<string, Record<string, JsonObject>>;
  const dummy: Record<string, string> = {
    deliveryId: 'whd_AAAAAAAAAAAAAAAAAAAAAAAA',
    sessionId: 'ses_AAAAAAAAAAAAAAAA',
    invitationId: 'inv_AAAAAAAAAAAAAAAA',
    userId: 'usr_AAAAAAAAAAAAAAAA',
  };
  return Object.entries(paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        path: template.replace(/\{([^}]+)\}/g, (_, name: string) => dummy[name] ?? 'x_AAAAAAAAAAAAAAAA'),
        hasBody: op.requestBody !== undefined,
      })),
  );
}

type Caller = Role | 'api key';
const callers: Caller[] = ['owner', 'developer', 'viewer', 'api key'];

/** Whether the table says `caller` is refused 403 for an operation with `access`. */
function refused(caller: Caller, access: Access): boolean {
  if (access === 'open' || access === 'session') return false;
  return !roleAllows(caller === 'api key' ? 'developer' : caller, access);
}

/**
 * The role matrix: for every operation in OPERATION_ROLES and every kind of caller, a request that is well formed
 * enough to pass authentication is refused with 403 exactly when the caller's role is below the operation's. Only
 * "403 or not" is asserted: what an allowed request then does depends on its dummy data.
 */
describe('dashboard.roles.matrix', () => {
  let h: Harness;
  const people = new Map<Role, Person>();
  before(async () => {
    h = await startHarness();
    for (const role of ['owner', 'developer', 'viewer'] as const) {
      people.set(role, await createPerson(h.runtime, { merchantId: h.account.merchantId, role }));
    }
  });
  after(() => h.close());

  it('OPERATION_ROLES lists exactly the operations of the dashboard contract', () => {
    const inContract = contractOperations()
      .map((o) => o.operationId)
      .sort();
    assert.deepEqual(Object.keys(OPERATION_ROLES).sort(), inContract);
  });

  for (const op of contractOperations()) {
    const access = OPERATION_ROLES[op.operationId as keyof typeof OPERATION_ROLES];
    for (const caller of callers) {
      const expected = refused(caller, access) ? '403 forbidden' : 'not 403';
      it(`${op.operationId} (${access}) as ${caller}: ${expected}`, async () => {
        const body = op.hasBody ? {} : undefined;
        let res: Response;
        if (caller === 'api key') {
          res = await h.call(op.method, op.path, { body });
        } else {
          // A fresh session per request: an allowed signOut or revokeSession must not end the next request's.
          const session = await sessionFor(h, people.get(caller)!);
          res = await callAs(h, session, op.method, op.path, { merchantId: h.account.merchantId, body });
        }
        const text = await res.text();
        if (expected === '403 forbidden') {
          assert.equal(res.status, 403, text);
          assert.equal((JSON.parse(text) as { code: string }).code, 'forbidden');
        } else {
          assert.notEqual(res.status, 403, text);
        }
      });
    }
  }
});
