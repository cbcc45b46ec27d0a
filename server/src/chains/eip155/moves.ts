/**
 * EVM moves of collected settlement (chains/adapter.ts `MoveSender`): every leg is an EIP-3009
 * `transferWithAuthorization` signed by the leg's settlement key, and the relayer submits a move's legs in one
 * transaction (Multicall3 `aggregate3` when there are several). The token's own nonce makes each leg happen at most
 * once whatever is resent, so a crash, a lost answer or a dropped transaction is repaired by sending again; and a
 * deposit or the collection account never needs gas (docs/decisions.md §22.4).
 */
import {
  encodeFunctionData,
  encodePacked,
  getAddress,
  keccak256,
  parseAbi,
  parseSignature,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
} from 'viem';
import type { Database } from '../../db/connect.js';
import { inRelayerTurn } from '../../db/queries/relayerNonces.js';
import type { Move, MoveEnd, MoveProgress, MoveSender } from '../adapter.js';
import type { Chains, EvmChain } from '../index.js';
import { eip3009Abi } from './abis.js';
import { tokenDomain, transferWithAuthorizationTypes } from './actions.js';
import type { EvmSettlementKeys } from './depositKeys.js';

const aggregate3Abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);

/**
 * How long a move's authorizations can be used, from the chain's time at signing (docs/decisions.md §22.11): long
 * enough for the executor's send retries (§22.10, about 13 minutes) and a slow inclusion, short enough that a move
 * given up on can be released within the hour. Stored with the signatures (`details` are written once), so every
 * resend submits the same authorization.
 */
export const MOVE_AUTHORIZATION_WINDOW_S = 3_600n;

/** The deadline of authorizations signed before it was bounded (details without `validBefore`): never. */
export const LEGACY_VALID_BEFORE = 2n ** 48n;

/** The longest wait between two looks at a move given up on whose authorizations are still valid. */
const ENDED_RECHECK_MAX_MS = 600_000;

export interface MoveOptions {
  /** How often `progress` asks to be called again while the move is not final. */
  recheckMs: number;
}

/** What `prepare` answers and the move's row stores: enough to send the same legs again, from any process. */
export interface EvmMoveDetails {
  token: Address;
  /** The block before the move was first prepared: where its `AuthorizationUsed` logs are looked for. */
  fromBlock: string;
  /** The authorizations' deadline, seconds (decimal): the latest block's timestamp at signing + the window. */
  validBefore?: string;
  legs: { from: Address; to: Address; value: string; nonce: Hex; signature: Hex }[];
}

/** The EIP-3009 nonce of a leg: the same for the same move and leg, so a re-prepare signs the same authorization. */
export function moveNonce(moveId: string, leg: number): Hex {
  return keccak256(encodePacked(['string', 'string', 'uint256'], ['paygate:move', moveId, BigInt(leg)]));
}

function chainOf(chains: Chains, caip2: string): EvmChain {
  const chain = chains.evm.find((c) => c.config.caip2 === caip2);
  if (!chain) throw new Error(`${caip2} is not a configured EVM chain`);
  return chain;
}

function tokenOfMove(chain: EvmChain, move: Move): Address {
  const asset = chain.config.assets.find((a) => a.caip19 === move.asset);
  if (!asset) throw new Error(`${move.asset} is not an asset of ${chain.config.caip2}`);
  // Without EIP-3009 a leg would need gas at its key and a nonce of its own: such assets are not collected (§22.4).
  if (!asset.eip3009 || asset.address === null) {
    throw new Error(`${move.asset} has no EIP-3009 transferWithAuthorization: it cannot be moved by the service`);
  }
  return asset.address;
}

async function used(chain: EvmChain, token: Address, leg: EvmMoveDetails['legs'][number]): Promise<boolean> {
  return chain.clients.public.readContract({
    address: token,
    abi: eip3009Abi,
    functionName: 'authorizationState',
    args: [leg.from, leg.nonce],
  });
}

function validBeforeOf(d: EvmMoveDetails): bigint {
  return d.validBefore === undefined ? LEGACY_VALID_BEFORE : BigInt(d.validBefore);
}

function callOf(token: Address, validBefore: bigint, leg: EvmMoveDetails['legs'][number]): Hex {
  const { r, s, v, yParity } = parseSignature(leg.signature);
  return encodeFunctionData({
    abi: eip3009Abi,
    functionName: 'transferWithAuthorization',
    args: [leg.from, leg.to, BigInt(leg.value), 0n, validBefore, leg.nonce, Number(v ?? BigInt(yParity + 27)), r, s],
  });
}

/** The transaction that used a leg's authorization and its block, or null while none did (on the canonical chain). */
async function useOf(
  chain: EvmChain,
  d: EvmMoveDetails,
  leg: EvmMoveDetails['legs'][number],
): Promise<{ txId: Hex; blockNumber: bigint; blockHash: Hex } | null> {
  const logs = await chain.clients.public.getContractEvents({
    address: d.token,
    abi: eip3009Abi,
    eventName: 'AuthorizationUsed',
    args: { authorizer: leg.from, nonce: leg.nonce },
    fromBlock: BigInt(d.fromBlock),
  });
  const log = logs.find((l) => !l.removed && l.blockNumber !== null && l.blockHash !== null);
  if (!log) return null;
  return { txId: log.transactionHash, blockNumber: log.blockNumber, blockHash: log.blockHash };
}

/** The newest final block: the `finalized` tag where the chain has it, else the configured confirmations. */
async function finalizedBlock(chain: EvmChain): Promise<bigint> {
  try {
    const block = await chain.clients.public.getBlock({ blockTag: 'finalized' });
    if (block.number !== null) return block.number;
  } catch {
    // A chain without the tag answers an error: its confirmations decide instead.
  }
  const latest = await chain.clients.public.getBlockNumber({ cacheTime: 0 });
  return latest - BigInt(chain.config.confirmations) + 1n;
}

/** Whether the transaction is in a block (a receipt), waiting (known to the node), or nowhere. */
async function whereIs(chain: EvmChain, hash: Hex): Promise<'mined' | 'reverted' | 'waiting' | 'gone'> {
  try {
    const receipt = await chain.clients.public.getTransactionReceipt({ hash });
    return receipt.status === 'success' ? 'mined' : 'reverted';
  } catch (err) {
    if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
  }
  try {
    await chain.clients.public.getTransaction({ hash });
    return 'waiting';
  } catch (err) {
    if (err instanceof TransactionNotFoundError) return 'gone';
    throw err;
  }
}

export function evmMoves(
  chains: Chains,
  db: Database,
  keys: EvmSettlementKeys,
  options: MoveOptions = { recheckMs: 2_000 },
): MoveSender {
  async function prepare(move: Move): Promise<Record<string, unknown>> {
    const chain = chainOf(chains, move.chain);
    const token = tokenOfMove(chain, move);
    if (move.legs.length === 0) throw new Error(`move ${move.id} has no legs`);
    const { name, version } = await tokenDomain(chain, token);
    const domain = { name, version, chainId: chain.config.chainId, verifyingContract: token };
    // The chain's clock, not ours: `validBefore` is compared with block timestamps.
    const latest = await chain.clients.public.getBlock({ blockTag: 'latest' });
    const head = latest.number;
    const validBefore = latest.timestamp + MOVE_AUTHORIZATION_WINDOW_S;
    const legs = await Promise.all(
      move.legs.map(async (leg, i) => {
        if (leg.amount <= 0n) throw new Error(`move ${move.id} leg ${i}: amount ${leg.amount} is not positive`);
        const account = keys.account(leg.from);
        const message = {
          from: account.address,
          to: getAddress(leg.to),
          value: leg.amount,
          validAfter: 0n,
          validBefore,
          nonce: moveNonce(move.id, i),
        };
        const signature = await account.signTypedData({
          domain,
          types: transferWithAuthorizationTypes,
          primaryType: 'TransferWithAuthorization',
          message,
        });
        return { from: message.from, to: message.to, value: leg.amount.toString(), nonce: message.nonce, signature };
      }),
    );
    const details: EvmMoveDetails = {
      token,
      fromBlock: (head > 0n ? head - 1n : 0n).toString(),
      validBefore: validBefore.toString(),
      legs,
    };
    return details as unknown as Record<string, unknown>;
  }

  /** Submits the legs not used yet in one transaction, in the relayer's turn; null when every leg is used. */
  async function submit(chain: EvmChain, d: EvmMoveDetails): Promise<Hex | null> {
    const relayer = chain.clients.relayer.account.address;
    return chain.clients.relayTurns.inTurn(`${chain.config.caip2}:${relayer}`, async () => {
      // Checked in turn: a send that waited behind another sees the legs it (or anyone) used meanwhile.
      const open: EvmMoveDetails['legs'] = [];
      for (const leg of d.legs) if (!(await used(chain, d.token, leg))) open.push(leg);
      if (open.length === 0) return null;
      const { hash } = await inRelayerTurn(db, chain.config.caip2, relayer, async () => {
        const nonce = BigInt(await chain.clients.public.getTransactionCount({ address: relayer, blockTag: 'pending' }));
        const hash =
          open.length === 1
            ? await chain.clients.relayer.sendTransaction({
                to: d.token,
                data: callOf(d.token, validBeforeOf(d), open[0]!),
                nonce: Number(nonce),
              })
            : await chain.clients.relayer.writeContract({
                address: chain.config.multicall3,
                abi: aggregate3Abi,
                functionName: 'aggregate3',
                // No leg may fail alone: a move lands whole or not at all, and `progress` sees which.
                args: [
                  open.map((leg) => ({
                    target: d.token,
                    allowFailure: false,
                    callData: callOf(d.token, validBeforeOf(d), leg),
                  })),
                ],
                nonce: Number(nonce),
              });
        return { nonce, hash };
      });
      return hash;
    });
  }

  async function send(move: Move, raw: Record<string, unknown>): Promise<{ txId: string }> {
    const chain = chainOf(chains, move.chain);
    const d = raw as unknown as EvmMoveDetails;
    const hash = await submit(chain, d);
    if (hash) return { txId: hash };
    // Every leg was used already (our earlier send, whose answer was lost): that transaction is the move's.
    const use = await useOf(chain, d, d.legs[0]!);
    if (!use) throw new Error(`move ${move.id}: its authorizations are used but no AuthorizationUsed log is found`);
    return { txId: use.txId };
  }

  async function progress(move: Move, raw: Record<string, unknown>, txId: string | null): Promise<MoveProgress> {
    const chain = chainOf(chains, move.chain);
    const d = raw as unknown as EvmMoveDetails;
    const pending = (id?: string): MoveProgress => ({
      state: 'pending',
      recheckInMs: options.recheckMs,
      ...(id && { txId: id }),
    });
    const uses = await Promise.all(d.legs.map((leg) => useOf(chain, d, leg)));
    if (uses.every((u) => u !== null)) {
      const final = await finalizedBlock(chain);
      for (const use of uses) {
        if (use!.blockNumber > final) return pending(uses[0]!.txId);
        // A log answered from a block a reorg replaced since: look again next time.
        const block = await chain.clients.public.getBlock({ blockNumber: use!.blockNumber });
        if (block.hash !== use!.blockHash) return pending(txId ?? undefined);
      }
      return { state: 'final', txId: uses[0]!.txId };
    }
    if (txId === null) return pending();
    const where = await whereIs(chain, txId as Hex);
    // Mined: its logs are read again next time (they may have been read before the block).
    if (where === 'waiting' || where === 'mined') return pending(txId);
    if (where === 'reverted' && uses.every((u) => u === null)) {
      return { state: 'failed', reason: `Transaction ${txId} reverted; no leg of the move was used.` };
    }
    // Gone (dropped, or reorged out and not mined again), or reverted after some legs were used elsewhere: the
    // unused legs are sent again. Their authorizations are the same, so nothing can happen twice.
    const again = await submit(chain, d);
    return pending(again ?? txId);
  }

  /**
   * Dead once the finalized block's timestamp reached `validBefore`: every later block is at least as late, so no
   * authorization of the move can execute any more, and a reorg cannot bring back an earlier time. Then whether any
   * leg executed after all is read from the token (`authorizationState`), which no later block can change.
   */
  async function ended(move: Move, raw: Record<string, unknown>): Promise<MoveEnd> {
    const chain = chainOf(chains, move.chain);
    const d = raw as unknown as EvmMoveDetails;
    const final = await chain.clients.public.getBlock({ blockNumber: await finalizedBlock(chain) });
    const validBefore = validBeforeOf(d);
    if (final.timestamp < validBefore) {
      const waitMs = Number(validBefore - final.timestamp) * 1000;
      return { state: 'live', recheckInMs: Math.min(Math.max(waitMs, options.recheckMs), ENDED_RECHECK_MAX_MS) };
    }
    const states = await Promise.all(d.legs.map((leg) => used(chain, d.token, leg)));
    if (states.every((u) => !u)) return { state: 'dead' };
    // Partly used: never given back (part of it moved); looked at again, for the operator to resolve.
    if (!states.every((u) => u)) return { state: 'live', recheckInMs: ENDED_RECHECK_MAX_MS };
    const use = await useOf(chain, d, d.legs[0]!);
    if (!use) throw new Error(`move ${move.id}: its authorizations are used but no AuthorizationUsed log is found`);
    return { state: 'executed', txId: use.txId };
  }

  return { prepare, send, progress, ended };
}
