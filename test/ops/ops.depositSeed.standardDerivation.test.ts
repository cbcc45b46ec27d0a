/**
 * Funds at deposit addresses are recoverable from PAYGATE_DEPOSIT_SEED alone (issue 34 step 5, OPERATIONS.md "Key
 * custody"): the addresses Paygate hands out are the standard BIP-44 accounts of the mnemonic, derived here without
 * Paygate's code — viem's mnemonic accounts for EVM (`m/44'/60'/0'/0/i`), and for Solana BIP-39 + SLIP-0010 written
 * out below from the two standards (`m/44'/501'/i'/0'`, the path Phantom and Solflare import).
 */
import assert from 'node:assert/strict';
import { createHmac, createPrivateKey, createPublicKey, pbkdf2Sync } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { newMnemonic } from '../../server/src/settlement/seed.js';
import { startCheckoutHarness, type CheckoutHarness } from '../gateway/checkout.js';
import { expectJson } from '../gateway/harness.js';

/** BIP-39: the seed is PBKDF2-HMAC-SHA512 of the mnemonic, salt "mnemonic", 2048 rounds. */
const bip39Seed = (mnemonic: string) => pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');

/** SLIP-0010 for ed25519 (hardened steps only), then the public key as a Solana address. */
function solanaAddress(mnemonic: string, path: number[]): string {
  let digest = createHmac('sha512', 'ed25519 seed').update(bip39Seed(mnemonic)).digest();
  for (const step of path) {
    const index = Buffer.alloc(4);
    index.writeUInt32BE((step | 0x80000000) >>> 0);
    digest = createHmac('sha512', digest.subarray(32))
      .update(Buffer.concat([Buffer.alloc(1), digest.subarray(0, 32), index]))
      .digest();
  }
  // An ed25519 private key in PKCS#8 is a fixed 16-byte prefix and the 32-byte seed.
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), digest.subarray(0, 32)]);
  const jwk = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return getBase58Decoder().decode(Buffer.from(jwk.x!, 'base64url'));
}

describe('ops deposit seed: deposit addresses are the standard derivations of the mnemonic', () => {
  const mnemonic = newMnemonic();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness({ config: { PAYGATE_DEPOSIT_SEED: mnemonic } });
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
  });
  after(() => h.close());

  it("derives every EVM deposit address as viem's mnemonic account m/44'/60'/0'/0/i, and Solana's as m/44'/501'/i'/0'", async () => {
    const checked: string[] = [];
    for (let n = 0; n < 3; n++) {
      const paymentId = await h.createPayment();
      const answer = await expectJson<{ deposits: { chain: string; address: string }[] }>(
        await h.call('GET', `/v1/gateway/payment/${paymentId}/deposit`),
        200,
      );
      const rows = (await h.runtime.db
        .knex('deposit_addresses')
        .where({ payment_id: paymentId })
        .select('chain_caip2', 'address', 'derivation_index')) as {
        chain_caip2: string;
        address: string;
        derivation_index: number | string;
      }[];
      assert.equal(rows.length, 2, 'an EVM and a Solana deposit address');
      for (const deposit of answer.deposits) {
        const row = rows.find((r) => r.chain_caip2 === deposit.chain)!;
        const index = Number(row.derivation_index);
        assert.ok(index >= 1, 'index 0 is the collection account');
        const expected = deposit.chain.startsWith('eip155:')
          ? mnemonicToAccount(mnemonic, { addressIndex: index }).address
          : solanaAddress(mnemonic, [44, 501, index, 0]);
        assert.equal(
          deposit.chain.startsWith('eip155:') ? getAddress(deposit.address) : deposit.address,
          expected,
          deposit.chain,
        );
        checked.push(`${deposit.chain}#${index}`);
      }
    }
    assert.equal(checked.length, 6);
  });

  it("puts the collection account, where sweeps gather funds, at m/44'/60'/0'/0/0 and m/44'/501'/0'/0'", async () => {
    for (const adapter of h.runtime.checkout!.adapters) {
      const settlement = adapter.settlement!;
      const chain = adapter.namespace === 'eip155' ? 'eip155:31337' : h.solana.caip2;
      const address = await settlement.keyAddress(chain, { role: 'collection' });
      if (adapter.namespace === 'eip155') {
        assert.equal(getAddress(address), mnemonicToAccount(mnemonic, { addressIndex: 0 }).address);
      } else {
        assert.equal(address, solanaAddress(mnemonic, [44, 501, 0, 0]));
      }
    }
  });
});
