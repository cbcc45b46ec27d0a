/**
 * Detection through reorgs before finality (evm_snapshot / evm_revert around the transfer, then new blocks): a
 * transfer not yet at the required confirmations is marked reorged and never credited; one already counted is
 * reported loudly and the payment is not reversed silently.
 */
import assert from 'node:assert/strict';
import { evmDepositScan } from '../../server/src/chains/eip155/depositScan.js';
import type { Chains } from '../../server/src/chains/index.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { LOCAL } from '../gateway/checkout.js';
import { ASKED, ledgerOf, startDetectionHarness, type DetectionHarness } from './detection.js';

function withConfirmations(chains: Chains, confirmations: number): Chains {
  return { ...chains, evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, confirmations } })) };
}

describe('settlement scanDeposits through a reorg before finality', () => {
  useChainSnapshots();
  let h: DetectionHarness;
  let logs: CapturedLogs;
  before(async () => {
    logs = captureLogs('info');
    h = await startDetectionHarness({ logger: logs.logger });
  });
  after(() => h.close());
  beforeEach(() => h.startAtHead());

  it('a transfer reorged out below the required confirmations is marked reorged and does not credit', async () => {
    const scanner = evmDepositScan(withConfirmations(await sharedChains(), 3));
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const fork = await h.local.test.snapshot();
    const paid = await h.pay(buyer, deposit, ASKED);
    const seen = await h.scan(scanner);
    assert.equal(seen.recorded, 1);
    assert.deepEqual(seen.succeeded, []);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');

    await h.local.test.revert({ id: fork });
    await h.local.test.mine({ blocks: 3 });
    const report = await h.scan(scanner);
    assert.equal(report.reorged.length, 1);
    assert.deepEqual(
      (await h.transfers(paymentId)).map((t) => [t.tx_id, t.state]),
      [[paid.hash, 'reorged']],
    );
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    assert.deepEqual(await h.ledger(paymentId), []);
    assert.deepEqual(await h.discrepancies(paymentId), []);
    // Blocks later, still nothing: a reorged transfer is no longer watched.
    await h.local.test.mine({ blocks: 3 });
    assert.deepEqual((await h.scan(scanner)).succeeded, []);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
  });

  it('a counted transfer reorged out leaves the payment succeeded, logs an error and records an underpayment', async () => {
    const paymentId = await h.createPayment();
    const deposit = await h.depositFor(paymentId);
    const buyer = await h.buyer();
    const fork = await h.local.test.snapshot();
    const paid = await h.pay(buyer, deposit, ASKED);
    assert.deepEqual((await h.scan()).succeeded, [paymentId]);

    await h.local.test.revert({ id: fork });
    await h.local.test.mine({ blocks: 2 });
    const report = await h.scan();
    assert.equal(report.reorged.length, 1);
    const payment = await h.payment(paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.stages.success?.tx_id, paid.hash);
    const found = await h.discrepancies(paymentId);
    assert.deepEqual(
      found.map((d) => [d.kind, d.txId, d.expectedValue, d.receivedValue]),
      [['underpayment', paid.hash, ASKED.toString(), '0']],
    );
    // The ledger keeps what it recorded: reconciliation against the chain shows the missing funds.
    assert.deepEqual(
      ledgerOf(await h.ledger(paymentId)).map(([kind]) => kind),
      ['received', 'fee', 'payable'],
    );
    const loud = logs.lines().find((l) => l.paymentId === paymentId && l.level === 50);
    assert.ok(loud, 'an error line names the payment');
    assert.equal(loud.txId, paid.hash);
    assert.equal(loud.chain, LOCAL);
  });
});
