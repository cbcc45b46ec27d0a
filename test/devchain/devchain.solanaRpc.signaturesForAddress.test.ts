/**
 * `getSignaturesForAddress` on the local Solana endpoint: the signatures of landed transactions that touch an
 * account (any key of the message, read-only ones such as a Solana Pay reference included), newest first, with
 * Agave's `before`/`until`/`limit` and answer shape; and what `@solana/web3.js` v1's `Connection` reads from it.
 */
import assert from 'node:assert/strict';
import { AccountRole, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { Connection, PublicKey } from '@solana/web3.js';
import { findReference } from '@solana/pay';
import { fundedWallet, localSolanaRpc, rawSolanaRpc, sharedLocalSolana, signedTransaction } from '../helpers/solana.js';
import { solanaTransactionOf } from '../helpers/wait.js';

const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;

describe('local Solana RPC: getSignaturesForAddress', function () {
  let payer: KeyPairSigner;
  let recipient: Address;
  let reference: Address;
  // Above the rent-exempt minimum of an empty account, which the first transfer creates.
  let amount = 1_000_000n;
  const sent: string[] = [];

  async function send(instructions: Instruction[]): Promise<string> {
    const rpc = await localSolanaRpc();
    const tx = await signedTransaction(payer, instructions);
    await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();
    await solanaTransactionOf(rpc, tx.signature);
    return tx.signature;
  }

  /** A transfer that names the reference as a read-only account, as a Solana Pay transfer does. */
  const referenced = (): Instruction => {
    const transfer = getTransferSolInstruction({ source: payer, destination: recipient, amount: amount++ });
    return { ...transfer, accounts: [...transfer.accounts, { address: reference, role: AccountRole.READONLY }] };
  };

  before(async function () {
    payer = await fundedWallet();
    recipient = (await generateKeyPairSigner()).address;
    reference = (await generateKeyPairSigner()).address;
    for (let i = 0; i < 3; i++) sent.push(await send([referenced()]));
    // One with a memo, to see the memo field.
    sent.push(
      await send([referenced(), { programAddress: MEMO, data: new TextEncoder().encode('order 42'), accounts: [] }]),
    );
  });

  it('lists every transaction naming the account, newest first, in the real answer shape', async function () {
    const rpc = await localSolanaRpc();
    const found = await rpc.getSignaturesForAddress(reference).send();
    assert.deepEqual(
      found.map((f) => f.signature),
      [...sent].reverse(),
    );
    const [newest] = found;
    assert.deepEqual(Object.keys(newest!).sort(), [
      'blockTime',
      'confirmationStatus',
      'err',
      'memo',
      'signature',
      'slot',
    ]);
    assert.equal(newest!.err, null);
    assert.equal(newest!.memo, '[8] order 42');
    assert.equal(found[1]!.memo, null);
    assert.equal(newest!.confirmationStatus, 'confirmed');
    assert.equal(typeof newest!.blockTime, 'bigint');
    const landed = await solanaTransactionOf(rpc, newest!.signature);
    assert.equal(newest!.slot, landed!.slot);
    assert.equal(newest!.blockTime, landed!.blockTime);
    // The fee payer and the recipient are indexed too; an untouched account has nothing.
    assert.equal((await rpc.getSignaturesForAddress(recipient).send()).length, sent.length);
    assert.deepEqual(await rpc.getSignaturesForAddress((await generateKeyPairSigner()).address).send(), []);
  });

  it('pages with limit, before and until as Agave does', async function () {
    const rpc = await localSolanaRpc();
    const newestFirst = [...sent].reverse();
    const page = (config: Parameters<typeof rpc.getSignaturesForAddress>[1]) =>
      rpc
        .getSignaturesForAddress(reference, config)
        .send()
        .then((found) => found.map((f) => f.signature));
    assert.deepEqual(await page({ limit: 2 }), newestFirst.slice(0, 2));
    assert.deepEqual(await page({ before: newestFirst[1] as never }), newestFirst.slice(2));
    assert.deepEqual(await page({ until: newestFirst[2] as never }), newestFirst.slice(0, 2));
    assert.deepEqual(
      await page({ before: newestFirst[0] as never, until: newestFirst[3] as never, limit: 1 }),
      newestFirst.slice(1, 2),
    );
    // An unknown `before` answers nothing; an unknown `until` bounds nothing.
    const stranger = '1'.repeat(64);
    assert.deepEqual(await page({ before: stranger as never }), []);
    assert.deepEqual(await page({ until: stranger as never }), newestFirst);
    // Nothing is finalized until 32 slots have passed.
    assert.deepEqual(await page({ commitment: 'finalized' }), []);
  });

  it('refuses a limit over 1000 and the processed commitment', async function () {
    const over = await rawSolanaRpc('getSignaturesForAddress', [reference, { limit: 1001 }]);
    assert.deepEqual(over.error, { code: -32602, message: 'Invalid params: Invalid limit; max 1000' });
    const processed = await rawSolanaRpc('getSignaturesForAddress', [reference, { commitment: 'processed' }]);
    assert.equal((processed.error as { code: number }).code, -32602);
  });

  it('answers what web3.js v1 and @solana/pay read: signatures, statuses, the latest blockhash', async function () {
    const connection = new Connection((await sharedLocalSolana()).rpcUrl, 'confirmed');
    const found = await connection.getSignaturesForAddress(new PublicKey(reference));
    assert.deepEqual(
      found.map((f) => f.signature),
      [...sent].reverse(),
    );
    // findReference answers the oldest transaction naming the reference.
    assert.equal((await findReference(connection, new PublicKey(reference))).signature, sent[0]);
    const statuses = await connection.getSignatureStatuses([sent[0]!], { searchTransactionHistory: true });
    assert.equal(statuses.value[0]!.err, null);
    const latest = await connection.getLatestBlockhash();
    assert.match(latest.blockhash, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.equal(typeof latest.lastValidBlockHeight, 'number');
    assert.equal((await connection.isBlockhashValid(latest.blockhash)).value, true);
  });
});
