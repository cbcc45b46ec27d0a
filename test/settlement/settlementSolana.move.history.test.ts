/**
 * A Solana move is signed again only when its first transaction provably never landed (docs/decisions.md §22.16):
 * "never landed" is a status lookup with history answering nothing, which a node also answers for a transaction it no
 * longer holds. So `expired` also needs the node's history (`minimumLedgerSlot`, `getFirstAvailableBlock`) to start
 * at or before the slot the move's blockhash was read at; otherwise the move's landing is `unknown` and it is never
 * prepared again. A local Solana chain of its own keeps only a few transactions (`historyCapacity`, as a validator's
 * `--limit-ledger-size`), so the ledger really forgets the move's transaction; the run's shared chain keeps 20,000.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { startLocalSolanaChain, type LocalSolanaChain } from '@paygate/devchain';
import type { Move, MoveSender } from '../../server/src/chains/adapter.js';
import { connectSolanaChain, type SolanaChain } from '../../server/src/chains/solana/client.js';
import { localSolanaConfig } from '../../server/src/chains/solana/localConfig.js';
import { createSolanaSettlement, type SolanaSettlement } from '../../server/src/chains/solana/settlement.js';
import { createRuntime, type Runtime } from '@paygate/server';
import { createMerchant, createPartner } from '../../server/src/accounts/index.js';
import { newId } from '../../server/src/ids.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import type { MoveDeps } from '../../server/src/settlement/moves.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { testConfig } from '../helpers/config.js';
import { captureLogs } from '../helpers/logs.js';
import { testClock } from '../helpers/runtime.js';
import { eventually } from '../helpers/wait.js';

/** Transactions the chain of this file keeps: its start (fee payer, mint) and a deposit's mint fit, little more. */
const HISTORY = 4;

describe('settlement on Solana: a move is signed again only on a node whose history covers it', () => {
  let local: LocalSolanaChain;
  let chain: SolanaChain;
  let settlement: SolanaSettlement;
  let mover: MoveSender;
  let asset: string;
  let caip2: string;

  before(async () => {
    local = await startLocalSolanaChain({ historyCapacity: HISTORY });
    chain = await connectSolanaChain(localSolanaConfig(local), undefined, local.feePayer);
    settlement = createSolanaSettlement([chain], randomBytes(64));
    mover = settlement.mover!;
    caip2 = chain.config.caip2;
    asset = `${caip2}/token:${local.mints.tusd.address}`;
  });
  after(() => local.stop());

  const balance = (address: string) => settlement.balance(caip2, asset, address);
  const historyFrom = async () => [
    await chain.rpc.minimumLedgerSlot().send(),
    await chain.rpc.getFirstAvailableBlock().send(),
  ];

  it('progress/ended: a sweep that landed and was then forgotten by the node is unknown past its last valid height, never expired or dead', async () => {
    const deposit = await settlement.keyAddress(caip2, { role: 'deposit', index: 1 });
    const collection = await settlement.keyAddress(caip2, { role: 'collection' });
    await local.faucet.mintTokens(deposit as Address, local.mints.tusd.address, 10_000_000n);
    await eventually('the deposit funded', async () => (await balance(deposit)) === 10_000_000n);
    const move: Move = {
      id: 'swp_solana_forgotten',
      chain: caip2,
      asset,
      legs: [{ from: { role: 'deposit', index: 1 }, to: collection, amount: 4_000_000n }],
    };
    const details = JSON.parse(JSON.stringify(await mover.prepare(move))) as Record<string, unknown>;
    await mover.send(move, details);
    const landed = await eventually('the sweep to land', async () => {
      const progress = await mover.progress(move, details, null);
      return progress.state === 'pending' && progress.txId !== undefined && progress;
    });
    assert.equal(landed.txId, details.signature);
    assert.equal(await balance(collection), 4_000_000n);

    // The node forgets it: more transactions than it keeps land after it.
    const before = await historyFrom();
    for (let i = 0; i < HISTORY; i++)
      await local.faucet.airdropSol((await generateKeyPairSigner()).address, 1_000_000n);
    const [ledgerSlot, firstBlock] = await historyFrom();
    assert.equal(ledgerSlot, firstBlock, 'both methods answer the first slot of complete history');
    assert.ok(ledgerSlot! > before[0]!, 'the history now starts later');
    assert.equal(
      (await chain.rpc.getSignatureStatuses([landed.txId as never], { searchTransactionHistory: true }).send())
        .value[0],
      null,
      'the node no longer knows the transaction',
    );

    // Past its last valid height, and that height final: before, this was `expired` and the move was signed again.
    const height = await chain.rpc.getBlockHeight({ commitment: 'confirmed' }).send();
    local.test.warpSlots(BigInt(details.lastValidBlockHeight as string) - height + 1n + 33n);
    const progress = await mover.progress(move, details, landed.txId ?? null);
    assert.equal(progress.state, 'unknown');
    assert.match(progress.state === 'unknown' ? progress.reason : '', /cannot be told/);
    assert.equal((await mover.ended(move, details, landed.txId ?? null)).state, 'live', 'nothing is given back either');
    assert.equal(await balance(collection), 4_000_000n, 'moved once');
    assert.match(String(details.fromSlot), /^\d+$/, 'the slot the blockhash was read at is stored');
    assert.ok(ledgerSlot! > BigInt(details.fromSlot as string), "the history starts after the move's blockhash");
  });

  it('progress: a sweep that never landed, on the same node, is expired once its history covers the blockhash', async () => {
    const deposit = await settlement.keyAddress(caip2, { role: 'deposit', index: 2 });
    await local.faucet.mintTokens(deposit as Address, local.mints.tusd.address, 1_000_000n);
    await eventually('the deposit funded', async () => (await balance(deposit)) === 1_000_000n);
    const move: Move = {
      id: 'swp_solana_lost',
      chain: caip2,
      asset,
      legs: [{ from: { role: 'deposit', index: 2 }, to: (await generateKeyPairSigner()).address, amount: 1_000_000n }],
    };
    const details = JSON.parse(JSON.stringify(await mover.prepare(move))) as Record<string, unknown>;
    local.test.holdTransactions(true);
    try {
      await mover.send(move, details);
    } finally {
      local.test.holdTransactions(false);
    }
    const height = await chain.rpc.getBlockHeight({ commitment: 'confirmed' }).send();
    local.test.warpSlots(BigInt(details.lastValidBlockHeight as string) - height + 1n + 33n);
    assert.deepEqual(await mover.progress(move, details, details.signature as string), { state: 'expired' });
    const [historyStart] = await historyFrom();
    assert.ok(historyStart! <= BigInt(details.fromSlot as string), 'nothing since the blockhash was forgotten');
    assert.equal(await balance(deposit), 1_000_000n);
  });

  it('settlement.move: a sent sweep the node forgot stays sent past its last valid height, is never signed again, and is logged and counted at each look', async () => {
    const logs = captureLogs('info');
    const clock = testClock();
    let runtime: Runtime | null = null;
    try {
      runtime = await createRuntime({
        config: testConfig(),
        logger: logs.logger,
        now: clock.now,
        chains: { evm: [], solana: [chain], local: null, close: async () => undefined },
      });
      Object.assign(runtime.checkout!, { moveRecheckMs: 50 } satisfies Partial<MoveDeps>);
      const knex = runtime.db.knex;
      const port = runtime.checkout!.adapters.find((a) => a.isChainId(caip2))!.settlement!;
      const partner = await createPartner(runtime, { name: 'History partner' });
      const merchant = await createMerchant(runtime, {
        partnerId: partner.id,
        name: 'History merchant',
        feeConfig: null,
        settlementAddresses: { [caip2]: (await generateKeyPairSigner()).address },
      });
      const payment = await createPayment(runtime, {
        merchantId: merchant.id,
        live: false,
        referenceId: 'order-history',
        amount: { unit: 'iso4217/USD', value: '300' },
        expiresAt: clock.now() + 3_600_000,
        successUrl: null,
        errorUrl: null,
      });
      // A final deposit with its ledger row, as detection leaves one (settlementSolana.scanDeposits tests detection).
      const [account] = (await knex('deposit_accounts')
        .insert({ payment_id: payment.id, created_at: clock.now() })
        .returning('derivation_index')) as ({ derivation_index: number } | number)[];
      const index = typeof account === 'object' ? account.derivation_index : account!;
      const deposit = await port.keyAddress(caip2, { role: 'deposit', index });
      await knex('deposit_addresses').insert({
        chain_caip2: caip2,
        address: deposit,
        payment_id: payment.id,
        derivation_index: index,
        created_at: clock.now(),
      });
      const minted = await local.faucet.mintTokens(deposit as Address, local.mints.tusd.address, 3_000_000n);
      await knex('deposit_transfers').insert({
        id: newId.depositTransfer(),
        chain_caip2: caip2,
        asset_caip19: asset,
        address: deposit,
        payment_id: payment.id,
        tx_id: minted,
        position: 0,
        from_address: null,
        amount: '3000000',
        block_number: '0',
        block_hash: null,
        block_time: null,
        state: 'final',
        detected_at: clock.now(),
      });
      await insertLedgerEntries(knex, [
        {
          entryKey: `received:${caip2}:${minted}:0`,
          kind: 'received',
          merchantId: merchant.id,
          live: false,
          mode: 'collected',
          chain: caip2,
          asset,
          amount: 3_000_000n,
          address: deposit,
          paymentId: payment.id,
          txId: minted,
          createdAt: clock.now(),
        },
      ]);
      const collection = await port.keyAddress(caip2, { role: 'collection' });
      const collected = await balance(collection);

      const [sweepId] = await planSweeps(runtime.checkout!);
      const sweepRow = async () =>
        (await knex('sweeps').where({ id: sweepId }).first()) as { state: string; tx_id: string; details: string };
      await runtime.jobs.drain();
      const sent = await sweepRow();
      assert.equal(sent.state, 'sent');
      assert.equal(await balance(collection), collected + 3_000_000n, 'the sweep landed');

      for (let i = 0; i < HISTORY; i++)
        await local.faucet.airdropSol((await generateKeyPairSigner()).address, 1_000_000n);
      const { lastValidBlockHeight } = JSON.parse(sent.details) as { lastValidBlockHeight: string };
      const height = await chain.rpc.getBlockHeight({ commitment: 'confirmed' }).send();
      local.test.warpSlots(BigInt(lastValidBlockHeight) - height + 1n + 33n);

      const unknownCount = async () =>
        /paygate_settlement_moves_unknown_total\{chain="[^"]+",kind="sweep"\} (\d+)/.exec(
          await runtime!.metrics.registry.getSingleMetricAsString('paygate_settlement_moves_unknown_total'),
        )?.[1];
      clock.advance(50);
      await runtime.jobs.drain();
      assert.deepEqual(await sweepRow(), sent, 'kept as it was: sent, the same transaction and details');
      assert.equal(await unknownCount(), '1');
      assert.ok(
        logs.lines().some((l) => l.level === 50 && /cannot be told/.test(String(l.msg)) && l.id === sweepId),
        'logged at error',
      );
      // Looked at again 10 minutes later, not sooner; still never signed again.
      clock.advance(60_000);
      await runtime.jobs.drain();
      assert.equal(await unknownCount(), '1');
      clock.advance(10 * 60_000);
      await runtime.jobs.drain();
      assert.equal(await unknownCount(), '2');
      assert.deepEqual(await sweepRow(), sent);
      assert.equal(await balance(collection), collected + 3_000_000n, 'moved once');
      assert.equal(await balance(deposit), 0n);
    } finally {
      await runtime?.close();
    }
  });
});
