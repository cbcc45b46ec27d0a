/**
 * Relay jobs run 16 at once, so the relays of many gasless payments start together. The relayer must still send
 * them one after the other with the next nonce each time: two relays that read the same pending nonce would see one
 * refused (or replace the other), and a skipped nonce would stall every later relay. The relays are started all at
 * once here rather than through the job queue, whose drain runs them one at a time; on both databases, whose locks
 * differ (a row lock on PostgreSQL, the one connection on SQLite).
 */
import assert from 'node:assert/strict';
import { getAddress, parseEventLogs, type Hex } from 'viem';
import { eip3009Abi, erc20Abi } from '../../server/src/chains/eip155/abis.js';
import { relayAuthorization } from '../../server/src/chains/eip155/settle.js';
import { findEvmChain } from '../../server/src/chains/index.js';
import { findClaimOfPayment } from '../../server/src/db/queries/claims.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectJson } from './harness.js';
import { LOCAL, SETTLEMENT, signAction, startCheckoutHarness, type Buyer, type StatusAnswer } from './checkout.js';
import { WAIT_MS, answerWithin, receiptOf, transactionOf } from '../helpers/wait.js';

const PAYMENTS = 6;
const FUNDED = 100_000_000n;

describeEachDatabase('gateway.relay concurrent', (get) => {
  useChainSnapshots();

  it('relays of 6 gasless payments started together: each lands once, with consecutive relayer nonces', async () => {
    const h = await startCheckoutHarness({ db: get().db });
    try {
      const chain = findEvmChain(h.runtime.chains!, LOCAL);
      assert.ok(chain, 'the runtime serves the local chain');
      const client = h.local.clients.public;
      const relayer = chain.clients.relayer.account.address;

      // Six confirmed payments of different amounts, each from its own buyer; their relay jobs are left undrained.
      const paid: { paymentId: string; buyer: Buyer; amount: bigint }[] = [];
      for (let i = 0; i < PAYMENTS; i++) {
        const buyer = await h.buyer(FUNDED);
        const paymentId = await h.createPayment({ amount: { unit: 'iso4217/USD', value: String(1000 + 111 * i) } });
        const option = await h.optionFor(paymentId, buyer, h.tusd);
        const body = { optionId: option.id, results: [await signAction(buyer, option)] };
        assert.equal((await expectJson<StatusAnswer>(await h.confirm(paymentId, body), 200)).status, 'processing');
        paid.push({ paymentId, buyer, amount: BigInt(option.amount.value) });
      }
      assert.equal(new Set(paid.map((p) => p.amount)).size, PAYMENTS, 'every payment has its own amount');

      const claims = await Promise.all(
        paid.map(async ({ paymentId }) => {
          const claim = await findClaimOfPayment(h.runtime.db.knex, paymentId);
          assert.ok(claim, `claim of ${paymentId}`);
          assert.equal(claim.kind, 'eip3009');
          assert.equal(claim.txId, null, 'not relayed yet');
          return claim;
        }),
      );
      const sentBefore = await client.getTransactionCount({ address: relayer, blockTag: 'pending' });
      const settlementBefore = await h.tusdBalance(SETTLEMENT);

      // allSettled, so that a failed relay is reported only once the others are done with the database and chain.
      const relayed = await Promise.allSettled(claims.map((claim) => relayAuthorization(h.runtime.db, chain, claim)));

      const hashes = relayed.map((outcome, i) => {
        if (outcome.status === 'rejected') assert.fail(`relay ${i} failed: ${String(outcome.reason)}`);
        const { txId } = outcome.value;
        assert.ok(txId, `relay ${i} sent a transaction`);
        assert.match(txId, /^0x[0-9a-f]{64}$/);
        return txId as Hex;
      });
      assert.equal(new Set(hashes).size, PAYMENTS, 'six distinct transactions');

      const nonces: number[] = [];
      for (const [i, hash] of hashes.entries()) {
        const { buyer, amount } = paid[i]!;
        const receipt = await receiptOf(client, hash);
        assert.equal(receipt.status, 'success', `relay ${i}`);
        const tx = await transactionOf(client, hash);
        assert.equal(getAddress(tx.from), relayer, `relay ${i} sent by the relayer`);
        nonces.push(tx.nonce);
        // The relay moved this payment's amount from its buyer to the merchant, once.
        const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs });
        assert.deepEqual(
          transfers.map((l) => [getAddress(l.address), l.args.from, l.args.to, l.args.value]),
          [[h.local.testUsd, buyer.account.address, SETTLEMENT, amount]],
          `relay ${i} transfer`,
        );
        const used = parseEventLogs({ abi: eip3009Abi, eventName: 'AuthorizationUsed', logs: receipt.logs });
        assert.deepEqual(
          used.map((l) => [l.args.authorizer, l.args.nonce]),
          [[buyer.account.address, claims[i]!.details.nonce]],
          `relay ${i} used the buyer's authorization`,
        );
      }

      // Consecutive from the relayer's next nonce: no gap, no repeat, and nothing else sent.
      assert.deepEqual(
        [...nonces].sort((a, b) => a - b),
        Array.from({ length: PAYMENTS }, (_, k) => sentBefore + k),
      );
      assert.equal(await client.getTransactionCount({ address: relayer, blockTag: 'pending' }), sentBefore + PAYMENTS);
      const stored = (await h.runtime.db
        .knex('relayer_nonces')
        .where({ chain_caip2: LOCAL, address: relayer })
        .first('next_nonce')) as { next_nonce: number | string } | undefined;
      assert.ok(stored, 'the relayer has a nonce row');
      assert.equal(BigInt(stored.next_nonce), BigInt(sentBefore + PAYMENTS), 'stored next nonce');

      for (const { buyer, amount } of paid) {
        assert.equal(await h.tusdBalance(buyer.account.address), FUNDED - amount, `balance of ${buyer.caip10}`);
      }
      const total = paid.reduce((sum, p) => sum + p.amount, 0n);
      assert.equal(await h.tusdBalance(SETTLEMENT), settlementBefore + total);
    } finally {
      await h.close();
    }
  });

  it('while a relay waits on the node, the database answers other queries', async () => {
    const h = await startCheckoutHarness({ db: get().db });
    try {
      const chain = findEvmChain(h.runtime.chains!, LOCAL)!;
      const buyer = await h.buyer(FUNDED);
      const paymentId = await h.createPayment();
      const option = await h.optionFor(paymentId, buyer, h.tusd);
      const body = { optionId: option.id, results: [await signAction(buyer, option)] };
      await expectJson<StatusAnswer>(await h.confirm(paymentId, body), 200);
      const claim = (await findClaimOfPayment(h.runtime.db.knex, paymentId))!;

      // The relayer's send is held until the query below has had its answer (or has waited 2 s for one).
      let reached: () => void = () => undefined;
      const sending = new Promise<void>((r) => (reached = r));
      let release: () => void = () => undefined;
      const gate = new Promise<void>((r) => (release = r));
      const relayerClient = chain.clients.relayer;
      const held = {
        ...chain,
        clients: {
          ...chain.clients,
          relayer: {
            ...relayerClient,
            writeContract: (async (args: Parameters<typeof relayerClient.writeContract>[0]) => {
              reached();
              await gate;
              return relayerClient.writeContract(args);
            }) as typeof relayerClient.writeContract,
          },
        },
      } as typeof chain;
      const relay = relayAuthorization(h.runtime.db, held, claim);
      await sending;
      // Held until release(): a database that waits on the relay would never answer in time.
      const answer = await answerWithin(
        h.runtime.db.knex('payments').where({ id: paymentId }).first('status'),
        WAIT_MS,
      );
      release();
      assert.deepEqual(answer, { answered: true, value: { status: 'processing' } });
      const { txId } = await relay;
      assert.equal((await receiptOf(h.local.clients.public, txId as Hex)).status, 'success');
    } finally {
      await h.close();
    }
  });
});
