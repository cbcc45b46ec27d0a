/**
 * Deposit instructions (chains/<namespace>/depositUri.ts): the EIP-681 and Solana Pay transfer-request URIs are exact
 * (amounts from minor units by string arithmetic, never a float), and each namespace offers only the assets it can
 * sweep without the buyer.
 */
import assert from 'node:assert/strict';
import { eip681TransferUri, evmDepositInstructions } from '../../server/src/chains/eip155/depositUri.js';
import {
  solanaDepositInstructions,
  solanaPayAmount,
  solanaPayTransferUri,
} from '../../server/src/chains/solana/depositUri.js';
import { sharedChains } from '../helpers/chain.js';

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const DEPOSIT = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOLANA_DEPOSIT = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

describe('settlement.depositUri', () => {
  it('eip681TransferUri: token@chainId/transfer with the checksummed recipient and the minor units as uint256', () => {
    assert.equal(
      eip681TransferUri({
        chainId: 8453,
        token: USDC_BASE.toLowerCase(),
        recipient: DEPOSIT.toLowerCase(),
        amount: 12_500_000n,
      }),
      `ethereum:${USDC_BASE}@8453/transfer?address=${DEPOSIT}&uint256=12500000`,
    );
  });

  it('eip681TransferUri: an 18-decimal amount beyond 2^64 is written whole, with no exponent', () => {
    const amount = 123_456_789n * 10n ** 18n + 1n;
    const uri = eip681TransferUri({ chainId: 1, token: USDC_BASE, recipient: DEPOSIT, amount });
    assert.equal(uri, `ethereum:${USDC_BASE}@1/transfer?address=${DEPOSIT}&uint256=123456789000000000000000001`);
    assert.throws(
      () => eip681TransferUri({ chainId: 1, token: USDC_BASE, recipient: DEPOSIT, amount: -1n }),
      RangeError,
    );
  });

  it('solanaPayAmount: whole units, exact, trailing zeros dropped, a leading 0 below 1', () => {
    assert.equal(solanaPayAmount(12_500_000n, 6), '12.5');
    assert.equal(solanaPayAmount(12_000_000n, 6), '12');
    assert.equal(solanaPayAmount(1n, 6), '0.000001');
    assert.equal(solanaPayAmount(1n, 9), '0.000000001');
    assert.equal(solanaPayAmount(1_000_000_001n, 9), '1.000000001');
    assert.equal(solanaPayAmount(0n, 9), '0');
    assert.equal(solanaPayAmount(42n, 0), '42');
    // Far beyond a double's 53 bits of precision.
    assert.equal(solanaPayAmount(123_456_789_012_345_678_901_234_567_891n, 9), '123456789012345678901.234567891');
  });

  it('solanaPayTransferUri: recipient, amount, spl-token, then the label and message URL-encoded', () => {
    assert.equal(
      solanaPayTransferUri({
        recipient: SOLANA_DEPOSIT,
        amount: 12_500_000n,
        decimals: 6,
        mint: USDC_MINT,
        label: 'Northwind Coffee & Tea',
        message: 'Order #1',
      }),
      `solana:${SOLANA_DEPOSIT}?amount=12.5&spl-token=${USDC_MINT}&label=Northwind%20Coffee%20%26%20Tea&message=Order%20%231`,
    );
    // SOL itself: no spl-token.
    assert.equal(
      solanaPayTransferUri({ recipient: SOLANA_DEPOSIT, amount: 1_500_000_000n, decimals: 9, mint: null }),
      `solana:${SOLANA_DEPOSIT}?amount=1.5`,
    );
  });

  it('evmDepositInstructions: EIP-3009 tokens only (TUSD, not ether), and the URI of the local chain', async () => {
    const chains = await sharedChains();
    const local = chains.local!.evm;
    const deposits = evmDepositInstructions(chains);
    const tusd = `eip155:31337/erc20:${local.testUsd}`;
    assert.deepEqual(deposits.assets('eip155:31337'), [tusd]);
    assert.deepEqual(deposits.assets('eip155:1'), []);
    assert.equal(
      deposits.paymentUri({ chain: 'eip155:31337', asset: tusd, address: DEPOSIT, amount: 7_500_000n }),
      `ethereum:${local.testUsd}@31337/transfer?address=${DEPOSIT}&uint256=7500000`,
    );
    assert.throws(() =>
      deposits.paymentUri({ chain: 'eip155:31337', asset: 'eip155:31337/slip44:60', address: DEPOSIT, amount: 1n }),
    );
  });

  it('solanaDepositInstructions: SPL tokens only (TUSD, not SOL), and the transfer request of the local chain', async () => {
    const chains = await sharedChains();
    const solana = chains.local!.solana;
    const deposits = solanaDepositInstructions(chains.solana);
    const tusd = `${solana.caip2}/token:${solana.mints.tusd.address}`;
    assert.deepEqual(deposits.assets(solana.caip2), [tusd]);
    assert.equal(
      deposits.paymentUri({
        chain: solana.caip2,
        asset: tusd,
        address: SOLANA_DEPOSIT,
        amount: 12_500_000n,
        label: 'Shop',
      }),
      `solana:${SOLANA_DEPOSIT}?amount=12.5&spl-token=${solana.mints.tusd.address}&label=Shop`,
    );
  });
});
