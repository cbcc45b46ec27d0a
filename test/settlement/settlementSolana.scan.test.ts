/**
 * Deposit detection on Solana (docs/decisions.md §22.5) against the local chain: transfers from wallets that never saw
 * Paygate, as a plain wallet or an exchange sends them, to a deposit owner's associated token account, read through
 * the settlement port (`createSolanaSettlement(...).scanner`).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner, type Signature } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getRecoverNestedAssociatedTokenInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { DepositScan, SeenTransfer } from '../../server/src/chains/adapter.js';
import type { SolanaChain } from '../../server/src/chains/solana/client.js';
import { SOLANA_LANDING_WINDOW_SLOTS } from '../../server/src/chains/solana/depositScan.js';
import { createSolanaSettlement, type SolanaSettlement } from '../../server/src/chains/solana/settlement.js';
import { associatedTokenAccount } from '../../server/src/chains/solana/transfer.js';
import { sharedChains } from '../helpers/chain.js';
import {
  fundedWallet,
  localSolanaRpc,
  sharedLocalSolana,
  signedTransaction,
  useReleasedTransactions,
} from '../helpers/solana.js';
import { eventually } from '../helpers/wait.js';

describe('settlement on Solana: deposit scan', () => {
  let chain: SolanaChain;
  let settlement: SolanaSettlement;
  let scanner: DepositScan;
  let tusd: Address;
  let tusdAsset: string;
  let nextIndex = 1;
  useReleasedTransactions();

  before(async () => {
    chain = (await sharedChains()).solana[0]!;
    // A fresh seed: this run's deposit addresses are nobody else's.
    settlement = createSolanaSettlement([chain], randomBytes(64));
    scanner = settlement.scanner!;
    tusd = (await sharedLocalSolana()).mints.tusd.address;
    tusdAsset = `${chain.config.caip2}/token:${tusd}`;
  });

  async function depositOwner(): Promise<KeyPairSigner> {
    return settlement.keys.signer({ role: 'deposit', index: nextIndex++ });
  }

  /** Sends a transaction the payer signs and pays for; answers its signature once it landed. */
  async function send(payer: KeyPairSigner, instructions: Instruction[]): Promise<Signature> {
    const rpc = await localSolanaRpc();
    const signed = await signedTransaction(payer, instructions);
    await rpc.sendTransaction(signed.wire, { encoding: 'base64' }).send();
    await eventually(`${signed.signature} to land`, async () => {
      const [status] = (await rpc.getSignatureStatuses([signed.signature]).send()).value;
      return status != null && status.err === null;
    });
    return signed.signature;
  }

  /** What a wallet or an exchange sends: the recipient's token account created if missing, then the transfer. */
  async function pay(from: KeyPairSigner, owner: Address, amount: bigint, mint = tusd): Promise<Instruction[]> {
    const [source, destination] = await Promise.all([
      associatedTokenAccount(from.address, mint),
      associatedTokenAccount(owner, mint),
    ]);
    return [
      getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: destination, owner, mint }),
      getTransferCheckedInstruction({ source, mint, destination, authority: from, amount, decimals: 6 }),
    ];
  }

  async function scanUntil(owners: string[], cursor: string | null, count: number) {
    return eventually(`${count} transfers to ${owners.join(', ')}`, async () => {
      const answer = await scanner.scan(chain.config.caip2, owners, cursor);
      return answer.transfers.length >= count && answer;
    });
  }

  it('scan: a TransferChecked and a plain Transfer from a fresh wallet are found with sender, amount and position', async () => {
    const wallet = await fundedWallet({ tusd: 10_000_000n });
    const owner = await depositOwner();
    const checked = await send(wallet, await pay(wallet, owner.address, 3_000_000n));
    const plain = await send(wallet, [
      getTransferInstruction({
        source: await associatedTokenAccount(wallet.address, tusd),
        destination: await associatedTokenAccount(owner.address, tusd),
        authority: wallet,
        amount: 2_000_000n,
      }),
    ]);

    const { transfers, cursor } = await scanUntil([owner.address], null, 2);
    assert.match(cursor, /^\d+$/);
    assert.deepEqual(
      transfers.map((t) => [t.txId, t.position, t.amount, t.from, t.address, t.asset, t.chain]),
      [
        [checked, 1, 3_000_000n, wallet.address, owner.address, tusdAsset, chain.config.caip2],
        [plain, 0, 2_000_000n, wallet.address, owner.address, tusdAsset, chain.config.caip2],
      ],
    );
    for (const t of transfers) {
      assert.equal(typeof t.blockNumber, 'bigint');
      assert.equal(typeof t.blockTime, 'number');
    }
    assert.ok(transfers[0]!.blockNumber! <= transfers[1]!.blockNumber!);
  });

  it('scan: resumes from its cursor, answering a later transfer once and earlier ones never again', async () => {
    const wallet = await fundedWallet({ tusd: 10_000_000n });
    const owner = await depositOwner();
    const first = await send(wallet, await pay(wallet, owner.address, 1_000_000n));
    const one = await scanUntil([owner.address], null, 1);
    assert.deepEqual(
      one.transfers.map((t) => t.txId),
      [first],
    );

    const second = await send(wallet, await pay(wallet, owner.address, 4_000_000n));
    const two = await scanUntil([owner.address], one.cursor, 1);
    assert.deepEqual(
      two.transfers.map((t) => [t.txId, t.amount]),
      [[second, 4_000_000n]],
    );
    assert.ok(BigInt(two.cursor) >= BigInt(one.cursor));
    const three = await scanner.scan(chain.config.caip2, [owner.address], two.cursor);
    assert.deepEqual(three.transfers, []);
  });

  it('scan: only the chain’s mints to the watched owners count: another mint and another owner in the same transaction do not', async () => {
    const wallet = await fundedWallet({ tusd: 10_000_000n });
    const owner = await depositOwner();
    const stranger = await generateKeyPairSigner();
    // A token of the wallet's own making: same decimals, another mint.
    const other = await generateKeyPairSigner();
    const rent = await (await localSolanaRpc()).getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
    const walletOther = await associatedTokenAccount(wallet.address, other.address);
    await send(wallet, [
      getCreateAccountInstruction({
        payer: wallet,
        newAccount: other,
        lamports: rent,
        space: getMintSize(),
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: other.address, decimals: 6, mintAuthority: wallet.address }),
      getCreateAssociatedTokenIdempotentInstruction({
        payer: wallet,
        ata: walletOther,
        owner: wallet.address,
        mint: other.address,
      }),
      getMintToInstruction({ mint: other.address, token: walletOther, mintAuthority: wallet, amount: 9_000_000n }),
    ]);

    const paid = await send(wallet, [
      ...(await pay(wallet, owner.address, 5_000_000n, other.address)),
      ...(await pay(wallet, stranger.address, 1_000_000n)),
      ...(await pay(wallet, owner.address, 2_500_000n)),
    ]);
    const { transfers } = await scanUntil([owner.address], null, 1);
    assert.deepEqual(
      transfers.map((t) => [t.txId, t.position, t.amount, t.asset]),
      [[paid, 5, 2_500_000n, tusdAsset]],
    );
  });

  it('scan: two deposits paid in one transaction are two transfers of that transaction, each to its owner', async () => {
    const wallet = await fundedWallet({ tusd: 10_000_000n });
    const [a, b] = [await depositOwner(), await depositOwner()];
    const paid = await send(wallet, [
      ...(await pay(wallet, a.address, 1_250_000n)),
      ...(await pay(wallet, b.address, 3_750_000n)),
    ]);
    const { transfers } = await scanUntil([a.address, b.address], null, 2);
    assert.deepEqual(
      transfers.map((t) => [t.txId, t.position, t.address, t.amount]),
      [
        [paid, 1, a.address, 1_250_000n],
        [paid, 3, b.address, 3_750_000n],
      ],
    );
  });

  it('scan: a transfer made by an inner instruction counts (tokens recovered from a nested token account)', async () => {
    // A classic exchange mistake: TUSD sent to the token account's address as if it were the owner. The owner's key
    // recovers it with the ATA program, whose transfer into the deposit's token account is an inner instruction.
    const wallet = await fundedWallet({ tusd: 10_000_000n });
    const owner = await depositOwner();
    const ownerAta = await associatedTokenAccount(owner.address, tusd);
    const nested = await associatedTokenAccount(ownerAta, tusd);
    await send(wallet, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: wallet, ata: ownerAta, owner: owner.address, mint: tusd }),
      ...(await pay(wallet, ownerAta, 6_000_000n)),
    ]);
    const before = await scanner.scan(chain.config.caip2, [owner.address], null);
    assert.deepEqual(before.transfers, []);

    const recovered = await send(wallet, [
      getRecoverNestedAssociatedTokenInstruction({
        nestedAssociatedAccountAddress: nested,
        nestedTokenMintAddress: tusd,
        destinationAssociatedAccountAddress: ownerAta,
        ownerAssociatedAccountAddress: ownerAta,
        ownerTokenMintAddress: tusd,
        walletAddress: owner,
      }),
    ]);
    const { transfers } = await scanUntil([owner.address], before.cursor, 1);
    assert.deepEqual(
      transfers.map((t) => [t.txId, t.position, t.amount, t.from]),
      // The recover instruction is 0; its TransferChecked is its first inner instruction.
      [[recovered, 1000, 6_000_000n, ownerAta]],
    );
  });

  it('status: confirmed when seen, final once 32 slots passed; a transaction that never landed is unknown, then gone once it can no longer land', async () => {
    const local = await sharedLocalSolana();
    const wallet = await fundedWallet({ tusd: 10_000_000n });
    const owner = await depositOwner();
    await send(wallet, await pay(wallet, owner.address, 1_500_000n));
    const [seen] = (await scanUntil([owner.address], null, 1)).transfers as [SeenTransfer];
    assert.equal(await scanner.status(seen), 'confirmed');
    local.test.warpSlots(33n);
    await eventually('the deposit to be final', async () => (await scanner.status(seen)) === 'final');

    // Accepted by the node, then dropped: its signature never lands.
    local.test.holdTransactions(true);
    const dropped = await signedTransaction(wallet, await pay(wallet, owner.address, 1_000_000n));
    await (await localSolanaRpc()).sendTransaction(dropped.wire, { encoding: 'base64' }).send();
    local.test.holdTransactions(false);
    const lost = { ...seen, txId: dropped.signature };
    // Not known now is not gone while it could still land: no node can tell (decisions.md §27.22).
    assert.equal(await scanner.status(lost), 'unknown');
    local.test.warpSlots(SOLANA_LANDING_WINDOW_SLOTS + 64n);
    await eventually('the dropped transfer to be gone', async () => (await scanner.status(lost)) === 'gone');
  });
});
