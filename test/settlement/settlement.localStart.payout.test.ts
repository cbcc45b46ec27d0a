/**
 * Collected settlement on the chains `paygate start` starts itself (PAYGATE_CHAINS=local, docs/decisions.md §22.16):
 * the local EVM chain mines an empty block on an interval besides the blocks of transactions, so its `finalized`
 * block advances with no traffic, and a payment paid by a plain transfer is detected, swept, paid out and settled by
 * the background timers and jobs alone. The interval is injected (50 ms instead of a second) so the 64 blocks of each
 * finality pass in seconds; the run's shared chain, which tests drive block by block, is not involved.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { erc20Abi, getAddress } from 'viem';
import { createRuntime, type Runtime } from '@paygate/server';
import { createMerchant, createPartner } from '../../server/src/accounts/index.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { depositAddressesFor } from '../../server/src/settlement/collected/deposits.js';
import { testConfig } from '../helpers/config.js';
import { eventually, receiptOf } from '../helpers/wait.js';

/** Three finalities (deposit, sweep, payout) of 64 blocks at 50 ms, a 10 s payout round and the moves' rechecks. */
const END_TO_END_MS = 90_000;

describe('settlement on the default start: local chains that finalize without traffic', function () {
  this.timeout(END_TO_END_MS + 30_000);
  let runtime: Runtime | null = null;
  afterEach(async () => {
    await runtime?.close();
    runtime = null;
  });

  it('startBackground: the finalized block advances with no transaction, and a collected test payment is paid out and settled with the payout transaction', async () => {
    runtime = await createRuntime({
      config: testConfig({ PAYGATE_DEPOSIT_SCAN_INTERVAL_MS: '100', PAYGATE_PAYOUT_INTERVAL_S: '10' }),
      logger: pino({ level: 'silent' }),
      chains: 'start',
      localBlockTimeMs: 50,
      jobPollIntervalMs: 50,
    });
    const knex = runtime.db.knex;
    const local = runtime.chains!.local!.evm;
    const client = local.clients.public;
    const chain = local.config.caip2;

    const head = await client.getBlockNumber();
    await eventually(
      'the finalized block to pass the head at start, with no transaction sent',
      async () => (await client.getBlock({ blockTag: 'finalized' })).number > head,
    );
    // Transactions are still mined at once, not at the next interval.
    const minted = await local.fund.mintTestUsd(getAddress(`0x${randomBytes(20).toString('hex')}`), 1n);
    assert.equal((await receiptOf(client, minted)).status, 'success');

    const partner = await createPartner(runtime, { name: 'Default start partner' });
    const payoutAddress = getAddress(`0x${randomBytes(20).toString('hex')}`);
    const merchant = await createMerchant(runtime, {
      partnerId: partner.id,
      name: 'Default start merchant',
      feeConfig: null,
      settlementAddresses: { [chain]: payoutAddress },
    });
    await knex('merchants').where({ id: merchant.id }).update({ settlement_mode: 'collected' });
    const created = await createPayment(runtime, {
      merchantId: merchant.id,
      live: false,
      referenceId: 'order-default-start',
      amount: { unit: 'iso4217/USD', value: '250' },
      expiresAt: Date.now() + 3_600_000,
      successUrl: null,
      errorUrl: null,
    });
    const deposit = (await depositAddressesFor(runtime.checkout!, (await findPayment(knex, created.id))!)).find(
      (d) => d.chain === chain,
    )!;

    await runtime.startBackground();
    // Detection's first scan of a chain starts at its head: the transfer is sent after it.
    await eventually('the first scan of the local chain', () =>
      knex('scan_cursors').where({ chain_caip2: chain }).first(),
    );
    await local.fund.mintTestUsd(getAddress(deposit.address), 2_500_000n);

    const payout = await eventually(
      'the payout final and the payment settled',
      async () => {
        const row = (await knex('payouts').where({ merchant_id: merchant.id }).first()) as
          { state: string; tx_id: string; net: string } | undefined;
        const payment = await findPayment(knex, created.id);
        return row?.state === 'final' && payment?.stages.settled && { row, settled: payment.stages.settled };
      },
      { timeoutMs: END_TO_END_MS, intervalMs: 200 },
    );
    assert.equal(payout.row.net, '2500000');
    assert.equal(payout.settled.tx_id, payout.row.tx_id, 'settled with the payout transaction');
    assert.equal(
      await client.readContract({
        address: local.testUsd,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [payoutAddress],
      }),
      2_500_000n,
    );
  });
});
