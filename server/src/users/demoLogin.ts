/**
 * The development bootstrap's dashboard login: `demo@paygate.local`, owner of the demo merchant, with a random
 * password printed once beside the demo keys (never logged, never stored readable). When the user already exists
 * (a second `paygate admin bootstrap`), it only becomes owner of the new demo merchant and keeps its password.
 */
import { randomBase62 } from '../ids.js';
import { addMembership, createUser, findUserByEmail } from './userAccounts.js';
import type { UsersDeps } from './usersDeps.js';

export const DEMO_EMAIL = 'demo@paygate.local';

export interface DemoLogin {
  email: string;
  /** Null when the user existed already: its password is unchanged. */
  password: string | null;
}

export async function ensureDemoLogin(deps: UsersDeps, merchantId: string): Promise<DemoLogin> {
  const existing = await findUserByEmail(deps, DEMO_EMAIL);
  if (existing) {
    await addMembership(deps, existing.id, merchantId, 'owner');
    return { email: DEMO_EMAIL, password: null };
  }
  const password = randomBase62(20);
  const user = await createUser(deps, { email: DEMO_EMAIL, password });
  await addMembership(deps, user.id, merchantId, 'owner');
  return { email: DEMO_EMAIL, password };
}
