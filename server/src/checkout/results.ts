/**
 * Confirm's results, paired with the option's actions: one result per action, in order, in either of the contract's
 * forms. An option may mix namespaces (EVM actions, then a Solana one), so the pairs are grouped into legs of
 * consecutive actions of one namespace, and each leg goes to its chain adapter with exactly its own results.
 */
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import type { Action } from '../chains/adapter.js';

type ConfirmResult = components['schemas']['ConfirmResult'];

export interface ResultLeg {
  namespace: string;
  actions: Action[];
  /** One list of outputs per action of the leg. */
  results: string[][];
}

/** The namespace an action runs in: its chain's, or for a `build` action the one its data names. */
export function namespaceOfAction(action: Action): string {
  if (action.type === 'walletRpc') return action.data.chain_id.slice(0, action.data.chain_id.indexOf(':'));
  const payload = action.data.data.slice('bld_'.length).split('.', 1)[0] ?? '';
  try {
    const chain = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { c?: unknown }).c;
    if (typeof chain === 'string' && chain.includes(':')) return chain.slice(0, chain.indexOf(':'));
  } catch {
    // Not ours: reported below as an action no adapter serves.
  }
  throw new Error(`build action ${action.data.data.slice(0, 24)}… names no chain`);
}

export function pairResults(actions: Action[], results: ConfirmResult[]): ResultLeg[] {
  if (results.length !== actions.length) {
    throw new ApiError(
      'params_validation',
      `results has ${results.length} items but the option has ${actions.length} action${actions.length === 1 ? '' : 's'}.`,
    );
  }
  const legs: ResultLeg[] = [];
  actions.forEach((action, i) => {
    const result = results[i]!;
    const outputs = typeof result === 'string' ? [result] : result.data;
    const namespace = namespaceOfAction(action);
    const last = legs[legs.length - 1];
    if (last && last.namespace === namespace) {
      last.actions.push(action);
      last.results.push(outputs);
    } else {
      legs.push({ namespace, actions: [action], results: [outputs] });
    }
  });
  return legs;
}
