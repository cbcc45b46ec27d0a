/**
 * The invitation's own wrong-password limit against parallel guesses (docs/decisions.md §21.6), without the sign-in
 * throttle: each attempt is reserved on the invitation before its password is checked, so 60 parallel guesses get
 * at most MAX_WRONG_PASSWORDS checks, the rest find the link refused, and the last failed check revokes it.
 */
import assert from 'node:assert/strict';
import { ApiError } from '../../server/src/errors.js';
import { findMember } from '../../server/src/db/queries/teamRows.js';
import { acceptInvitation, createInvitation, MAX_WRONG_PASSWORDS } from '../../server/src/team/invitations.js';
import { describeEachDatabase } from '../helpers/db.js';
import { heldChecks, type HeldChecks } from '../helpers/passwordChecks.js';
import { eventually } from '../helpers/wait.js';
import { rejectsWith } from './rejects.js';
import { CHEAP_COST, PASSWORD, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

const BURST = 60;

describeEachDatabase('team.acceptInvitation.concurrent', (get) => {
  let w: TeamWorld;
  let checks: HeldChecks;
  let merchantId: string;
  let ownerId: string;

  before(async () => {
    checks = heldChecks();
    w = await teamWorld(get(), {
      signInGate: { perAccount: 1000, overall: 1000, verifyPassword: (p, e) => checks.verifyPassword(p, e) },
    });
    merchantId = await w.merchant();
    ownerId = await w.user(uniqueEmail('owner'), { merchantId, role: 'owner' });
  });
  after(() => w.close());

  it(`acceptInvitation: ${BURST} parallel wrong passwords get at most ${MAX_WRONG_PASSWORDS} checks and revoke the link; the right password is then refused`, async () => {
    const email = uniqueEmail('guessed');
    const userId = await w.user(email);
    const { inviteUrl } = await createInvitation(w.runtime, merchantId, ownerId, 'developer');
    const token = inviteUrl.slice(inviteUrl.indexOf('#') + 1);
    const accept = (password: string) =>
      acceptInvitation(w.runtime, { token, email, password }, { passwordCost: CHEAP_COST });

    checks.hold();
    let answered = 0;
    const pending = Array.from({ length: BURST }, (_, i) =>
      accept(`wrong guess number ${i}`).then(
        () => assert.fail('a wrong password was accepted'),
        (err: unknown) => {
          answered += 1;
          assert.ok(err instanceof ApiError, String(err));
          return err.status;
        },
      ),
    );
    await eventually('every attempt checked or answered', () => checks.started + answered >= BURST);
    const checked = checks.started;
    checks.release();
    const statuses = await Promise.all(pending);

    assert.equal(checked, MAX_WRONG_PASSWORDS, 'passwords checked');
    assert.equal(statuses.filter((s) => s === 401).length, checked, 'every checked attempt is a wrong password');
    assert.equal(statuses.filter((s) => s === 404).length, BURST - checked, 'the rest find the link refused');
    await rejectsWith(accept(PASSWORD), 'invalid_params', 404);
    assert.equal(await findMember(w.runtime.db.knex, merchantId, userId), null);
  });
});
