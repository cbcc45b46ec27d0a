/**
 * Collected settlement's chain side on Solana end to end, through the port only (docs/decisions.md §22.5): a plain
 * transfer from a wallet that never saw Paygate is detected at the deposit, final after 32 slots, swept to the
 * collection account, and paid out in one transaction of two legs (merchant and treasury), every step final and every
 * balance exact. The domain's executor (sweeps and payouts from ledger rows) drives these same calls.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { Move, SeenTransfer } from '../../server/src/chains/adapter.js';
import type { SolanaChain } from '../../server/src/chains/solana/client.js';
import { createSolanaSettlement } from '../../server/src/chains/solana/settlement.js';
import { associatedTokenAccount } from '../../server/src/chains/solana/transfer.js';
import { sharedChains } from '../helpers/chain.js';
import { fundedWallet, localSolanaRpc, sharedLocalSolana, signedTransaction } from '../helpers/solana.js';
import { eventually } from '../helpers/wait.js';

describe('settlement on Solana: deposit, sweep and payout through the port', () => {
  let chain: SolanaChain;
  before(async () => {
    chain = (await sharedChains()).solana[0]!;
  });

  it('a plain transfer is detected, final, swept to the collection account and paid out net of the fee', async () => {
    const local = await sharedLocalSolana();
    const caip2 = chain.config.caip2;
    const tusd = local.mints.tusd.address;
    const asset = `${caip2}/token:${tusd}`;
    const settlement = createSolanaSettlement([chain], randomBytes(64));
    const { scanner, mover } = settlement as Required<typeof settlement>;
    const balance = (address: string) => settlement.balance(caip2, asset, address);
    const finalize = () => local.test.warpSlots(33n);
    const [deposit, collection, treasury] = await Promise.all([
      settlement.keyAddress(caip2, { role: 'deposit', index: 1 }),
      settlement.keyAddress(caip2, { role: 'collection' }),
      settlement.keyAddress(caip2, { role: 'devTreasury' }),
    ]);
    const merchant = (await generateKeyPairSigner()).address;

    // The buyer's wallet (or an exchange) sends 12.5 TUSD, creating the deposit's token account as wallets do.
    const buyer = await fundedWallet({ tusd: 20_000_000n });
    const ata = await associatedTokenAccount(deposit as Address, tusd);
    const paid = await signedTransaction(buyer, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: buyer, ata, owner: deposit as Address, mint: tusd }),
      getTransferCheckedInstruction({
        source: await associatedTokenAccount(buyer.address, tusd),
        mint: tusd,
        destination: ata,
        authority: buyer,
        amount: 12_500_000n,
        decimals: 6,
      }),
    ]);
    await (await localSolanaRpc()).sendTransaction(paid.wire, { encoding: 'base64' }).send();

    const detected = await eventually('the deposit to be detected', async () => {
      const answer = await scanner.scan(caip2, [deposit], null);
      return answer.transfers.length > 0 && answer;
    });
    const [seen] = detected.transfers as [SeenTransfer];
    assert.deepEqual(
      [seen.txId, seen.address, seen.from, seen.amount],
      [paid.signature, deposit, buyer.address, 12_500_000n],
    );
    finalize();
    await eventually('the deposit to be final', async () => (await scanner.status(seen)) === 'final');

    async function complete(move: Move): Promise<string> {
      const details = JSON.parse(JSON.stringify(await mover.prepare(move))) as Record<string, unknown>;
      const { txId } = await mover.send(move, details);
      await eventually(`${move.id} to land`, async () => {
        const progress = await mover.progress(move, details, txId);
        return progress.state === 'pending' && progress.txId === txId;
      });
      finalize();
      const done = await eventually(`${move.id} to be final`, async () => {
        const progress = await mover.progress(move, details, txId);
        return progress.state !== 'pending' && progress;
      });
      assert.deepEqual(done, { state: 'final', txId });
      return txId;
    }

    await complete({
      id: 'swp_flow',
      chain: caip2,
      asset,
      legs: [{ from: { role: 'deposit', index: 1 }, to: collection, amount: 12_500_000n }],
    });
    assert.equal(await balance(deposit), 0n);
    assert.equal(await balance(collection), 12_500_000n);

    // A 1 % fee: 125,000 to the treasury, the net 12,375,000 to the merchant, in one transaction.
    await complete({
      id: 'po_flow',
      chain: caip2,
      asset,
      legs: [
        { from: { role: 'collection' }, to: merchant, amount: 12_375_000n },
        { from: { role: 'collection' }, to: treasury, amount: 125_000n },
      ],
    });
    assert.deepEqual(await Promise.all([deposit, collection, merchant, treasury].map(balance)), [
      0n,
      0n,
      12_375_000n,
      125_000n,
    ]);

    // The sweep left the deposit's account: it is no deposit, and the scan answers nothing new.
    const after = await scanner.scan(caip2, [deposit], detected.cursor);
    assert.deepEqual(after.transfers, []);
  });
});
