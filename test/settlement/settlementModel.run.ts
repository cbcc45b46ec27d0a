/**
 * Runs model sequences of settlement (settlementModel.commands.ts) against the real server: each sequence gets a fresh
 * database of the dialect and the run's anvil from a snapshot, runs its commands, is then driven to completion
 * (everything detected, swept, paid out and final) and checked once more. Shared by `npm test`
 * (settlement.model.invariants.test.ts) and the long run (`npm run bench -- settlement-model`).
 */
import fc from 'fast-check';
import type { Dialect } from '@paygate/server';
import { sharedLocalChain } from '../helpers/chain.js';
import { createTestDatabase } from '../helpers/db.js';
import { commandArbitraries, type CommandName } from './settlementModel.commands.js';
import { checkEnd } from './settlementModel.invariants.js';
import { newModel, type Model } from './settlementModel.model.js';
import { startWorld, type World } from './settlementModel.world.js';

export interface ModelRunOptions {
  dialect: Dialect;
  seed: number;
  /** Sequences to run from the seed. */
  numRuns: number;
  maxCommands: number;
  /** fast-check's replay path of a failure (printed with the seed). */
  path?: string;
  /** Shrink a failing sequence (slow against a real chain: each try is a whole sequence again). */
  shrink?: boolean;
  disabled?: ReadonlySet<CommandName>;
}

export interface ModelRunReport {
  sequences: number;
  steps: number;
  /** The failure fast-check reports (seed, path, the shrunk sequence and the violated invariant), or null. */
  failure: string | null;
}

export async function runModelSequences(options: ModelRunOptions): Promise<ModelRunReport> {
  let sequences = 0;
  let steps = 0;
  const property = fc.asyncProperty(
    fc.commands(commandArbitraries(options.disabled), { maxCommands: options.maxCommands, size: 'max' }),
    async (commands) => {
      sequences += 1;
      const database = await createTestDatabase(options.dialect);
      const chain = await sharedLocalChain();
      const snapshot = await chain.test.snapshot();
      const world = await startWorld(database);
      const model = newModel();
      try {
        await fc.asyncModelRun(() => ({ model, real: world }), commands);
        // Driven to completion: every transfer detected, swept, paid out and final, direct payments settled.
        await world.scan();
        await world.planSweeps();
        await world.settleMoves();
        await world.planPayouts();
        await world.settleMoves();
        await checkEnd(world, model);
        if (process.env.PAYGATE_MODEL_LOG === '1') await logSequence(world, model, String(commands));
      } catch (err) {
        if (process.env.PAYGATE_MODEL_LOG === '1') await logState(world);
        throw err;
      } finally {
        steps += model.steps;
        await world.close();
        await chain.test.revert({ id: snapshot });
        await database.drop();
      }
    },
  );
  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: options.numRuns,
    path: options.path,
    endOnFailure: !options.shrink,
    verbose: 1,
  });
  if (!details.failed) return { sequences, steps, failure: null };
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  const counterexample = details.counterexample?.[0] as unknown as { toString(): string } | undefined;
  return {
    sequences,
    steps,
    failure: `seed ${details.seed}, path "${details.counterexamplePath ?? ''}": ${error}\n  sequence: ${counterexample?.toString() ?? '?'}`,
  };
}

/** What a sequence did and where its payments ended, for reading a run (PAYGATE_MODEL_LOG=1). */
async function logSequence(world: World, model: Model, commands: string): Promise<void> {
  const knex = world.runtime.db.knex;
  const payments = await Promise.all(
    model.payments.map(async (p) => {
      const row = (await knex('payments').where({ id: p.id }).first('status')) as { status: string };
      return `${p.mode}:${row.status}:${[...p.sentTo.values()].join('+') || '0'}`;
    }),
  );
  const count = async (table: string) => Number(((await knex(table).count({ n: '*' }))[0] as { n: number | string }).n);
  console.log(
    `${commands}\n  payments ${payments.join(' ')}; refunds ${model.refunds.length}; sweeps ${await count('sweeps')}; payouts ${await count('payouts')}`,
  );
}

/** The ledger and the moves at a failure, for reading it (PAYGATE_MODEL_LOG=1). */
async function logState(world: World): Promise<void> {
  const knex = world.runtime.db.knex;
  console.log(
    JSON.stringify(
      {
        ledger: await knex('ledger_entries').select('kind', 'payment_id', 'payout_id', 'refund_id', 'amount', 'mode'),
        payouts: await knex('payouts').select('id', 'state', 'gross', 'net', 'fee', 'created_at'),
        items: await knex('payout_items').select(),
        refunds: await knex('onchain_refunds').select('id', 'payment_id', 'amount', 'state', 'created_at'),
        clock: world.clock.now(),
      },
      null,
      1,
    ),
  );
}

/** The commands left out through PAYGATE_MODEL_DISABLE (comma-separated), for checking the harness on its own. */
export function disabledFromEnv(): Set<CommandName> {
  return new Set(
    (process.env.PAYGATE_MODEL_DISABLE ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean) as CommandName[],
  );
}
