/**
 * The settlement keys (docs/decisions.md §22) derive by the standard paths wallets use, so an operator can recover
 * every key from the seed alone: checked against published vectors, not against our own output.
 */
import assert from 'node:assert/strict';
import { evmSettlementKeys } from '../../server/src/chains/eip155/depositKeys.js';
import { solanaSettlementKeys } from '../../server/src/chains/solana/depositKeys.js';
import { isValidMnemonic, newMnemonic, seedOf } from '../../server/src/settlement/seed.js';

// Foundry's and Hardhat's development mnemonic: its first BIP-44 accounts are anvil's well-known accounts.
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

describe('settlement.keys', () => {
  it('evm keys: the collection account and deposit 1 are the BIP-44 accounts 0 and 1 any EVM wallet derives', () => {
    const keys = evmSettlementKeys(seedOf(DEV_MNEMONIC));
    assert.equal(keys.address({ role: 'collection' }), '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    assert.equal(keys.address({ role: 'deposit', index: 1 }), '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    assert.equal(keys.address({ role: 'deposit', index: 2 }), '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC');
  });

  it('evm keys: the development treasury is on another account branch than every deposit', () => {
    const keys = evmSettlementKeys(seedOf(DEV_MNEMONIC));
    const treasury = keys.address({ role: 'devTreasury' });
    for (let i = 1; i <= 20; i++) assert.notEqual(keys.address({ role: 'deposit', index: i }), treasury);
    assert.notEqual(keys.address({ role: 'collection' }), treasury);
  });

  it('deposit index 0 and indexes past 2^31-1 are refused', () => {
    const keys = evmSettlementKeys(seedOf(DEV_MNEMONIC));
    assert.throws(() => keys.address({ role: 'deposit', index: 0 }), /outside/);
    assert.throws(() => keys.address({ role: 'deposit', index: 2 ** 31 }), /outside/);
  });

  it("solana keys: SLIP-0010 ed25519 of m/44'/501'/0'/0' matches the key Phantom and Solflare derive", async () => {
    // The 12-word BIP-39 test mnemonic; its first Solana account (m/44'/501'/0'/0') as wallets show it.
    const abandon = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    const keys = solanaSettlementKeys(seedOf(abandon));
    assert.equal(await keys.address({ role: 'collection' }), 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
  });

  it('solana keys: deposits, the collection account and the treasury are distinct and stable', async () => {
    const seed = seedOf(DEV_MNEMONIC);
    const a = solanaSettlementKeys(seed);
    const b = solanaSettlementKeys(seed);
    const addresses = await Promise.all([
      a.address({ role: 'collection' }),
      a.address({ role: 'devTreasury' }),
      a.address({ role: 'deposit', index: 1 }),
      a.address({ role: 'deposit', index: 2 }),
    ]);
    assert.equal(new Set(addresses).size, 4);
    assert.equal(await b.address({ role: 'deposit', index: 2 }), addresses[3]);
  });

  it('mnemonics: generated ones are 24 valid words; a wrong checksum is refused', () => {
    const words = newMnemonic();
    assert.equal(words.split(' ').length, 24);
    assert.ok(isValidMnemonic(words));
    assert.ok(isValidMnemonic(`  ${DEV_MNEMONIC.toUpperCase()} `));
    assert.ok(!isValidMnemonic(DEV_MNEMONIC.replace(/junk$/, 'test')));
  });
});
