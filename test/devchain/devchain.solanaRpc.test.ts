/**
 * The local Solana endpoint through @solana/kit, as the gateway's adapter will use it: chain identity, the faucet,
 * a real TransferChecked between associated token accounts (fee payer ≠ token owner), its status, metadata and
 * balances, account encodings, fees, and the JSON-RPC protocol itself.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND,
  address,
  compileTransactionMessage,
  createTransactionMessage,
  appendTransactionMessageInstructions,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Decoder,
  getCompiledTransactionMessageEncoder,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { LOCAL_SOLANA_GENESIS_SEED, solanaCaip2FromGenesisHash } from '@paygate/devchain';
import {
  fundedWallet,
  localSolanaRpc,
  rawSolanaRpc,
  sharedLocalSolana,
  signedTransaction,
  tusdAccount,
} from '../helpers/solana.js';
import { eventually, solanaTransactionOf } from '../helpers/wait.js';

const COMPUTE_BUDGET = address('ComputeBudget111111111111111111111111111111');

function setComputeUnitLimit(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

function setComputeUnitPrice(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

describe('local Solana RPC (LiteSVM)', function () {
  describe('chain identity', function () {
    it('answers a genesis hash derived from its documented seed, and the CAIP-2 id is its first 32 characters', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const genesisHash = await rpc.getGenesisHash().send();
      const digest = createHash('sha256').update(LOCAL_SOLANA_GENESIS_SEED).digest();
      assert.equal(genesisHash, getBase58Decoder().decode(digest));
      assert.equal(chain.genesisHash, genesisHash);
      assert.equal(chain.caip2, `solana:${genesisHash.slice(0, 32)}`);
      assert.equal(chain.commitment, 'confirmed');
    });

    it('uses the fixed, documented keys and mint', async function () {
      const chain = await sharedLocalSolana();
      assert.equal(chain.genesisHash, 'MfQzePv71xeCmNoR86q2ibum1QgT6UZjKNj212MphoW');
      assert.equal(chain.caip2, 'solana:MfQzePv71xeCmNoR86q2ibum1QgT6UZj');
      assert.equal(chain.faucetAuthority.address, 'BMm4eCpxptUci4CYrrTMFnzAMMAmdQfzN78bzeBUgxAu');
      assert.equal(chain.feePayer.address, 'HpkqDnuoJRaKmq1LobxGJzmSYLKZhYZtyBjVABwpnmZe');
      assert.equal(chain.settlementOwner.address, '37xNMmypvdazAkTFfJcnYV3bMb2k26fC4kxJqrqj4bXH');
      assert.equal(chain.mints.tusd.address, '9CRWVQzg5eCCkgaQ7a4TrXckPKWPnVfuqa1weqXL5q2G');
    });

    it('derives CAIP-2 ids as the public clusters have them', function () {
      assert.equal(
        solanaCaip2FromGenesisHash('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d'),
        'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      );
      assert.equal(
        solanaCaip2FromGenesisHash('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG'),
        'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      );
      assert.throws(() => solanaCaip2FromGenesisHash('0xnot-base58'), /not a base58 genesis hash/);
    });

    it('answers getHealth, getVersion and a clock that advances with wall time', async function () {
      const rpc = await localSolanaRpc();
      assert.equal(await rpc.getHealth().send(), 'ok');
      const version = await rpc.getVersion().send();
      assert.match(version['solana-core'], /^litesvm-\d+\.\d+\.\d+/);
      assert.equal(typeof version['feature-set'], 'number');
      const slot = await rpc.getSlot().send();
      const height = await rpc.getBlockHeight().send();
      // A slot every 400 ms of wall time: two more come, without anyone sending a transaction.
      await eventually('two more slots', async () => (await rpc.getSlot().send()) >= slot + 2n);
      // Read apart from the slot, the height may have been taken a tick later: it is waited for, not read once.
      await eventually('two more blocks', async () => (await rpc.getBlockHeight().send()) >= height + 2n);
      const finalized = await rpc.getSlot({ commitment: 'finalized' }).send();
      assert.ok(finalized <= (await rpc.getSlot().send()) - 1n);
    });
  });

  describe('faucet and fee payer', function () {
    it('funds the fee payer at start and airdrops SOL through requestAirdrop', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const { value: feePayerBalance } = await rpc.getBalance(chain.feePayer.address).send();
      assert.ok(feePayerBalance > 100n * 1_000_000_000n);
      const wallet = await generateKeyPairSigner();
      const signature = await rpc.requestAirdrop(wallet.address, lamports(2_500_000_000n)).send();
      const { value: statuses } = await rpc.getSignatureStatuses([signature]).send();
      assert.equal(statuses[0]?.err, null);
      assert.equal(statuses[0]?.confirmationStatus, 'confirmed');
      assert.equal((await rpc.getBalance(wallet.address).send()).value, 2_500_000_000n);
      // The same request again is a second transaction, not a duplicate of the first.
      const again = await rpc.requestAirdrop(wallet.address, lamports(2_500_000_000n)).send();
      assert.notEqual(again, signature);
      assert.equal((await rpc.getBalance(wallet.address).send()).value, 5_000_000_000n);
    });

    it('mints TUSD into the owner associated token account, creating it once', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const owner = await generateKeyPairSigner();
      const ata = await tusdAccount(owner.address);
      await chain.faucet.mintTokens(owner.address, chain.mints.tusd.address, 1_500_000n);
      await chain.faucet.mintTokens(owner.address, chain.mints.tusd.address, 250_000n);
      const { value } = await rpc.getTokenAccountBalance(ata).send();
      assert.deepEqual(value, { amount: '1750000', decimals: 6, uiAmount: 1.75, uiAmountString: '1.75' });
      assert.deepEqual(chain.mints.tusd, {
        address: chain.mints.tusd.address,
        decimals: 6,
        symbol: 'TUSD',
        name: 'Paygate Test USD',
      });
      const { value: mint } = await rpc.getAccountInfo(chain.mints.tusd.address, { encoding: 'jsonParsed' }).send();
      assert.ok(mint && 'parsed' in mint.data);
      assert.equal(mint.owner, TOKEN_PROGRAM_ADDRESS);
      assert.deepEqual((mint.data.parsed as { type: string; info: Record<string, unknown> }).type, 'mint');
      const info = (mint.data.parsed as { info: Record<string, unknown> }).info;
      assert.equal(info.decimals, 6);
      assert.equal(info.mintAuthority, chain.faucetAuthority.address);
      assert.equal(info.freezeAuthority, null);
      await assert.rejects(
        chain.faucet.mintTokens(owner.address, owner.address, 1n),
        /is not a mint of the local faucet/,
      );
    });
  });

  describe('a TransferChecked between associated token accounts', function () {
    it('lands, shows in getSignatureStatuses and getTransaction, and moves the balances', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const payer = await fundedWallet({ lamports: 10_000_000n, tusd: 5_000_000n });
      const merchant = chain.settlementOwner.address;
      const source = await tusdAccount(payer.address);
      const destination = await tusdAccount(merchant);
      const before = (await rpc.getBalance(chain.feePayer.address).send()).value;
      const merchantBefore = await rpc
        .getTokenAccountsByOwner(merchant, { mint: chain.mints.tusd.address }, { encoding: 'jsonParsed' })
        .send();
      const merchantHad = BigInt(
        (merchantBefore.value[0]?.account.data.parsed.info.tokenAmount.amount as string | undefined) ?? '0',
      );

      const tx = await signedTransaction(chain.feePayer, [
        await getCreateAssociatedTokenIdempotentInstructionAsync({
          payer: chain.feePayer,
          owner: merchant,
          mint: chain.mints.tusd.address,
        }),
        getTransferCheckedInstruction({
          source,
          mint: chain.mints.tusd.address,
          destination,
          authority: payer,
          amount: 1_250_000n,
          decimals: 6,
        }),
      ]);
      const signature = await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
      assert.equal(signature, tx.signature);

      const { value: statuses } = await rpc.getSignatureStatuses([signature]).send();
      assert.equal(statuses[0]?.err, null);
      assert.deepEqual(statuses[0]?.status, { Ok: null });
      assert.equal(statuses[0]?.confirmationStatus, 'confirmed');
      assert.ok(statuses[0]!.slot > 0n);

      assert.equal((await rpc.getTokenAccountBalance(source).send()).value.amount, '3750000');
      assert.equal(
        (await rpc.getTokenAccountBalance(destination).send()).value.amount,
        String(merchantHad + 1_250_000n),
      );
      const after = (await rpc.getBalance(chain.feePayer.address).send()).value;
      const rent = await rpc.getMinimumBalanceForRentExemption(165n).send();
      assert.equal(rent, 2_039_280n);
      const createdAta = merchantBefore.value.length === 0;
      // Two signatures (fee payer and token owner); the fee payer also funds the ATA's rent when it creates it.
      assert.equal(before - after, 10_000n + (createdAta ? rent : 0n));

      const landed = await solanaTransactionOf(rpc, signature);
      assert.equal(landed.slot, statuses[0]!.slot);
      assert.equal(landed.meta?.err, null);
      assert.equal(landed.meta?.fee, 10_000n);
      assert.equal(landed.version, 0);
      // Block time runs with the wall clock from genesis, plus the time of any warped slots.
      assert.ok(landed.blockTime && Number(landed.blockTime) >= Math.floor(Date.now() / 1000) - 5);
      assert.equal(landed.transaction.signatures[0], signature);
      const pre = landed.meta?.preTokenBalances?.find((b) => b.owner === payer.address);
      const post = landed.meta?.postTokenBalances?.find((b) => b.owner === payer.address);
      assert.equal(pre?.uiTokenAmount.amount, '5000000');
      assert.equal(post?.uiTokenAmount.amount, '3750000');
      assert.equal(post?.mint, chain.mints.tusd.address);
      const merchantPost = landed.meta?.postTokenBalances?.find((b) => b.owner === merchant);
      assert.equal(merchantPost?.uiTokenAmount.amount, String(merchantHad + 1_250_000n));
      // The associated token account program's CPIs into the token and system programs are instruction 0's, made
      // only when it creates the account: an earlier test in this process may have paid the merchant already.
      if (createdAta) assert.equal(landed.meta?.innerInstructions?.[0]?.index, 0);
      else assert.deepEqual(landed.meta?.innerInstructions, []);
      assert.ok(landed.meta?.logMessages?.includes(`Program ${TOKEN_PROGRAM_ADDRESS} success`));

      // The same transaction in base64, and a v0 transaction refused without maxSupportedTransactionVersion.
      const raw = await solanaTransactionOf(rpc, signature, { encoding: 'base64' });
      assert.deepEqual(raw?.transaction, [tx.wire, 'base64']);
      const noVersion = await rawSolanaRpc('getTransaction', [signature, { commitment: 'confirmed' }]);
      assert.equal((noVersion.error as { code: number }).code, -32015);
    });

    it('finalizes 32 slots after landing', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const wallet = await generateKeyPairSigner();
      const signature = await chain.faucet.airdropSol(wallet.address, 1_000_000n);
      // Not yet finalized is an absence, which no wait can show: one read is the assertion.
      // eslint-disable-next-line no-restricted-syntax
      const early = rpc.getTransaction(signature, {
        commitment: 'finalized',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      });
      assert.equal(await early.send(), null);
      chain.test.warpSlots(32n);
      const { value } = await rpc.getSignatureStatuses([signature]).send();
      assert.equal(value[0]?.confirmationStatus, 'finalized');
      assert.equal(value[0]?.confirmations, null);
      const landed = await solanaTransactionOf(rpc, signature, { commitment: 'finalized' });
      assert.equal(landed.slot, value[0]?.slot);
    });
  });

  describe('accounts', function () {
    it('lists token accounts by owner (mint or program filter) in base64 and jsonParsed', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const owner = await fundedWallet({ tusd: 42n });
      const ata = await tusdAccount(owner.address);
      const byMint = await rpc
        .getTokenAccountsByOwner(owner.address, { mint: chain.mints.tusd.address }, { encoding: 'base64' })
        .send();
      assert.equal(byMint.value.length, 1);
      assert.equal(byMint.value[0]?.pubkey, ata);
      assert.equal(byMint.value[0]?.account.owner, TOKEN_PROGRAM_ADDRESS);
      assert.equal(byMint.value[0]?.account.space, 165n);
      const data = Buffer.from(byMint.value[0]!.account.data[0], 'base64');
      assert.equal(data.readBigUInt64LE(64), 42n);

      const byProgram = await rpc
        .getTokenAccountsByOwner(owner.address, { programId: TOKEN_PROGRAM_ADDRESS }, { encoding: 'jsonParsed' })
        .send();
      const info = byProgram.value[0]?.account.data.parsed.info;
      assert.equal(info?.mint, chain.mints.tusd.address);
      assert.equal(info?.owner, owner.address);
      assert.equal(info?.state, 'initialized');
      assert.deepEqual(info?.tokenAmount, {
        amount: '42',
        decimals: 6,
        uiAmount: 0.000042,
        uiAmountString: '0.000042',
      });

      const stranger = await generateKeyPairSigner();
      const none = await rpc.getTokenAccountsByOwner(stranger.address, { mint: chain.mints.tusd.address }).send();
      assert.deepEqual(none.value, []);
      const noMint = await rawSolanaRpc('getTokenAccountsByOwner', [owner.address, { mint: owner.address }]);
      assert.equal((noMint.error as { code: number }).code, -32602);
    });

    it('answers getAccountInfo and getMultipleAccounts, with null for missing accounts', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const missing = await generateKeyPairSigner();
      assert.equal((await rpc.getAccountInfo(missing.address, { encoding: 'base64' }).send()).value, null);
      assert.equal((await rpc.getBalance(missing.address).send()).value, 0n);
      const { value } = await rpc
        .getMultipleAccounts([chain.feePayer.address, missing.address, chain.mints.tusd.address], {
          encoding: 'base64',
        })
        .send();
      assert.equal(value.length, 3);
      assert.equal(value[0]?.owner, '11111111111111111111111111111111');
      assert.equal(value[1], null);
      assert.equal(value[2]?.space, 82n);
      const sliced = await rpc
        .getAccountInfo(chain.mints.tusd.address, { encoding: 'base64', dataSlice: { offset: 44, length: 1 } })
        .send();
      assert.deepEqual(sliced.value?.data, ['Bg==', 'base64']);
      const notToken = await rawSolanaRpc('getTokenAccountBalance', [chain.feePayer.address]);
      assert.equal((notToken.error as { code: number }).code, -32602);
    });
  });

  describe('simulateTransaction', function () {
    it('runs a transfer without committing it, and shows the accounts it would leave', async function () {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const payer = await fundedWallet({ tusd: 700n });
      const recipient = await fundedWallet({ tusd: 1n });
      const destination = await tusdAccount(recipient.address);
      const tx = await signedTransaction(chain.feePayer, [
        getTransferCheckedInstruction({
          source: await tusdAccount(payer.address),
          mint: chain.mints.tusd.address,
          destination,
          authority: payer,
          amount: 300n,
          decimals: 6,
        }),
      ]);
      const { value } = await rpc
        .simulateTransaction(tx.wire, {
          encoding: 'base64',
          sigVerify: true,
          innerInstructions: true,
          accounts: { addresses: [destination], encoding: 'jsonParsed' },
        })
        .send();
      assert.equal(value.err, null);
      assert.equal(value.fee, 10_000n);
      assert.ok(value.unitsConsumed !== undefined && value.unitsConsumed > 0n);
      assert.deepEqual(value.innerInstructions, []);
      const simulated = value.accounts[0]?.data;
      assert.ok(simulated && 'parsed' in simulated);
      assert.equal((simulated.parsed.info as { tokenAmount: { amount: string } }).tokenAmount.amount, '301');
      assert.equal((await rpc.getTokenAccountBalance(destination).send()).value.amount, '1');
      assert.deepEqual((await rpc.getSignatureStatuses([tx.signature]).send()).value, [null]);
    });
  });

  describe('fees', function () {
    async function feeOf(instructions: Instruction[]) {
      const chain = await sharedLocalSolana();
      const rpc = await localSolanaRpc();
      const { value: lifetime } = await rpc.getLatestBlockhash().send();
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(chain.feePayer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      const bytes = getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message));
      const encoded = getBase64Decoder().decode(bytes) as TransactionMessageBytesBase64;
      const { value: quoted } = await rpc.getFeeForMessage(encoded).send();
      const tx = await signedTransaction(chain.feePayer, instructions);
      const before = (await rpc.getBalance(chain.feePayer.address).send()).value;
      await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
      const after = (await rpc.getBalance(chain.feePayer.address).send()).value;
      return { quoted, charged: before - after };
    }

    it('quotes with getFeeForMessage what LiteSVM charges, priority fees included', async function () {
      const chain = await sharedLocalSolana();
      const payer = await fundedWallet({ tusd: 10n });
      const recipient = await fundedWallet({ tusd: 1n });
      const transfer = getTransferCheckedInstruction({
        source: await tusdAccount(payer.address),
        mint: chain.mints.tusd.address,
        destination: await tusdAccount(recipient.address),
        authority: payer,
        amount: 1n,
        decimals: 6,
      });
      const plain = await feeOf([transfer]);
      assert.deepEqual(plain, { quoted: 10_000n, charged: 10_000n });
      const priced = await feeOf([setComputeUnitLimit(50_000), setComputeUnitPrice(1_000_001n), transfer]);
      // ceil(50,000 × 1,000,001 / 10^6) = 50,001 lamports on top of two signatures.
      assert.deepEqual(priced, { quoted: 60_001n, charged: 60_001n });
      // With a price and no limit, the default limit is 200,000 CUs for the token program's instruction and 3,000
      // for the ComputeBudget one: ceil(203,000 × 10 / 10^6) = 3 lamports.
      const defaulted = await feeOf([setComputeUnitPrice(10n), transfer]);
      assert.deepEqual(defaulted, { quoted: 10_003n, charged: 10_003n });
      const builtin = await feeOf([
        setComputeUnitPrice(1_000_000n),
        getTransferSolInstruction({ source: recipient, destination: payer.address, amount: 1n }),
      ]);
      // SIMD-0170: builtin instructions (System, ComputeBudget) default to 3,000 CUs each.
      assert.deepEqual(builtin, { quoted: 16_000n, charged: 16_000n });
    });
  });

  describe('JSON-RPC protocol', function () {
    it('answers an unknown method with -32601, which kit reports as METHOD_NOT_FOUND', async function () {
      const rpc = await localSolanaRpc();
      const raw = await rawSolanaRpc('getBlockProduction');
      assert.deepEqual(raw, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 1 });
      await assert.rejects(rpc.getBlockProduction().send(), (err: unknown) =>
        isSolanaError(err, SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND),
      );
    });

    it('answers batches in order, parse errors with -32700, and GET /health', async function () {
      const { rpcUrl } = await sharedLocalSolana();
      const batch = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          { jsonrpc: '2.0', id: 'a', method: 'getHealth' },
          { jsonrpc: '2.0', id: 'b', method: 'nope' },
          { jsonrpc: '2.0', method: 'getHealth' },
          { id: 'c', method: 'getHealth' },
        ]),
      });
      assert.deepEqual(await batch.json(), [
        { jsonrpc: '2.0', result: 'ok', id: 'a' },
        { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 'b' },
        { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: 'c' },
      ]);
      const broken = await fetch(rpcUrl, { method: 'POST', body: '{"jsonrpc":' });
      assert.deepEqual(await broken.json(), {
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error' },
        id: null,
      });
      const health = await fetch(`${rpcUrl}/health`);
      assert.equal(await health.text(), 'ok');
      const params = await rawSolanaRpc('getBalance', ['not-an-address']);
      assert.equal((params.error as { code: number }).code, -32602);
    });
  });
});
