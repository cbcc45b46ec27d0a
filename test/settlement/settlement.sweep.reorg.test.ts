/**
 * A sweep whose transaction a reorganisation removes before finality (anvil_reorg, seen through two RPC endpoints
 * behind fault proxies, both databases): the mover sends it again with the same authorizations, each is used once on
 * the canonical chain, and the collection address is credited once (decisions.md §27.10).
 */
import assert from 'node:assert/strict';
import type { Hex } from 'viem';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import type { EvmMoveDetails } from '../../server/src/chains/eip155/moves.js';
import type { Chains } from '../../server/src/chains/index.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { anvilReorg, onCanonicalChain } from '../helpers/reorg.js';
import { assertNoViolations, checkInvariants, scopeOf } from '../helpers/invariants.js';
import { receiptOf } from '../helpers/wait.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness } from './collected.js';

interface SweepRow {
  state: string;
  tx_id: string | null;
  details: string;
}

describeEachDatabase('settlement.sweep through an anvil reorganisation', (get) => {
  useChainSnapshots();
  let h: CollectedHarness;
  let proxies: FaultProxy[];

  beforeEach(async () => {
    const shared = await sharedChains();
    const anvil = (await sharedLocalChain()).config.rpcUrl;
    proxies = [await startFaultProxy(anvil), await startFaultProxy(anvil)];
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: proxies.map((p) => ({ url: p.url, timeoutMs: 2_000, weight: 1 })) };
      return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50 }) };
    });
    const chains: Chains = { ...shared, evm };
    h = await startCollectedHarness(get().db, {}, chains);
  });
  afterEach(async () => {
    await h.close();
    for (const p of proxies) await p.close();
  });

  const sweepRow = async (id: string) => (await h.runtime.db.knex('sweeps').where({ id }).first()) as SweepRow;

  it('a sweep reorganised out before finality is sent again with the same authorizations and credits once', async () => {
    const a = await paidDeposit(h, 2_000_000n, 0n);
    const b = await paidDeposit(h, 500_000n, 0n);
    const collection = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'collection' });
    const before = await h.balance(collection);
    const [sweep] = await planSweeps(h.checkout);
    const sent = (await h.until('the sweep sent', async () => (await sweepRow(sweep!)).tx_id)) as Hex;
    await receiptOf(h.local.clients.public, sent);

    // The sweep's block and the ones after it are replaced by empty blocks: the sweep is no longer on the chain.
    const head = await h.local.clients.public.getBlockNumber({ cacheTime: 0 });
    const at = (await receiptOf(h.local.clients.public, sent)).blockNumber;
    await anvilReorg(h.local.clients.public, Number(head - at + 1n), []);
    assert.equal(await onCanonicalChain(h.local.clients.public, sent), false, 'the reorganisation removed the sweep');
    assert.equal(await h.balance(collection), before);

    const details = JSON.parse((await sweepRow(sweep!)).details) as EvmMoveDetails;
    const ours = async () => {
      const uses = await h.local.clients.public.getContractEvents({
        address: h.local.testUsd,
        abi: eip3009Abi,
        eventName: 'AuthorizationUsed',
        args: { authorizer: [a.address, b.address] },
        fromBlock: BigInt(details.fromBlock),
      });
      return uses.filter((u) => details.legs.some((l) => l.nonce === u.args.nonce));
    };
    const landed = await h.until('the sweep landed again', async () => {
      const used = await ours();
      return used.length === 2 ? used[0]!.transactionHash : null;
    });
    await h.local.test.mine({ blocks: 64 });
    await h.until('the sweep final', async () => (await sweepRow(sweep!)).state === 'final');

    // Invariants: each authorization used once on the canonical chain, in the transaction the sweep row names; the
    // collection credited once with both deposits; the deposit addresses emptied.
    const used = await ours();
    assert.equal(used.length, 2, 'each authorization used once');
    assert.ok(used.every((u) => u.transactionHash === landed));
    assert.equal((await sweepRow(sweep!)).tx_id, landed);
    assert.equal((await h.balance(collection)) - before, a.amount + b.amount);
    assert.equal(await h.balance(a.address), 0n);
    assert.equal(await h.balance(b.address), 0n);
    assertNoViolations(await checkInvariants(scopeOf(h.runtime, { chains: await sharedChains() })));
  });
});
