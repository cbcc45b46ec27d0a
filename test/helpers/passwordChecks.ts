/**
 * A password check for the runtime's sign-in gate that counts its calls and, while held, keeps every check waiting
 * until the test lets them go: so a burst of parallel sign-ins is all in flight at once, whatever the machine's
 * speed, and the test sees how many checks the server started. The real scrypt check runs after the hold.
 */
import { verifyPassword } from '../../server/src/users/passwords.js';

export interface HeldChecks {
  verifyPassword(password: string, encoded: string): Promise<boolean>;
  /** Checks started since the last hold(). */
  readonly started: number;
  /** From now on checks wait for release(). */
  hold(): void;
  /** Lets every waiting check (and later ones) run. */
  release(): void;
}

export function heldChecks(): HeldChecks {
  let started = 0;
  let gate: { promise: Promise<void>; open: () => void } | null = null;
  return {
    async verifyPassword(password, encoded) {
      started += 1;
      if (gate) await gate.promise;
      return verifyPassword(password, encoded);
    },
    get started() {
      return started;
    },
    hold() {
      started = 0;
      let open = () => undefined as void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
    },
    release() {
      gate?.open();
      gate = null;
    },
  };
}
