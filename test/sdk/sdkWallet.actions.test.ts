/**
 * Each wallet RPC method performed with a real signer: anvil's unlocked account behind viem's EIP-1193 client for
 * eth_signTypedData_v4 and eth_sendTransaction, and real Ed25519 keypairs of @solana/kit (as a kit signer and as a
 * wallet-standard wallet) for solana_signTransaction.
 */
import assert from 'node:assert/strict';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
  type Address,
  type Blockhash,
  type KeyPairSigner,
  type SignatureBytes,
  type TransactionSendingSigner,
} from '@solana/kit';
import { recoverTypedDataAddress, type Hex } from 'viem';
import { PayError, performWalletRpc, type SolanaStandardWallet, type WalletRpcAction } from '@paygate/sdk-wallet';
import { sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import {
  ANVIL_BUYER,
  LOCAL_SETTLEMENT,
  anvilProvider,
  recordingProvider,
  signTypedData,
  transferTypedData,
  type RecordingProvider,
} from './walletHelpers.js';
import { receiptOf } from '../helpers/wait.js';

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

async function payError(promise: Promise<unknown>, reason: PayError['reason']): Promise<PayError> {
  const error = await promise.then(
    () => assert.fail(`expected a PayError ${reason}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PayError, `expected a PayError, got ${String(error)}`);
  assert.equal(error.reason, reason, error.message);
  return error;
}

/** A System Program transfer from `from`, with any further signers the transaction must carry, in base64. */
function solanaTransfer(from: Address, to: Address, coSigners: Address[] = []): string {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true); // SystemInstruction::Transfer
  view.setBigUint64(4, 1_000n, true);
  const blockhash = getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(32))) as Blockhash;
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(from, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: 1_000n }, m),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('11111111111111111111111111111111'),
          accounts: [
            { address: from, role: AccountRole.WRITABLE_SIGNER },
            { address: to, role: AccountRole.WRITABLE },
            ...coSigners.map((a) => ({ address: a, role: AccountRole.READONLY_SIGNER })),
          ],
          data,
        },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

const signSolana = (transaction: string): WalletRpcAction => ({
  chain_id: SOLANA_MAINNET,
  method: 'solana_signTransaction',
  params: [{ transaction }],
});

const decode = (base64: string) => getTransactionDecoder().decode(getBase64Encoder().encode(base64));

/** A wallet-standard wallet around a kit keypair; `tamper` makes it sign a transaction other than the one given. */
function standardWallet(
  signer: KeyPairSigner,
  options: { tamper?: boolean; feature?: boolean } = {},
): SolanaStandardWallet & { inputs: { chain?: string }[] } {
  const inputs: { chain?: string }[] = [];
  const account = { address: signer.address, publicKey: new Uint8Array(32), chains: [], features: [] };
  return {
    inputs,
    accounts: [account],
    features:
      options.feature === false
        ? { 'standard:connect': {} }
        : {
            'solana:signTransaction': {
              version: '1.0.0',
              supportedTransactionVersions: ['legacy', 0],
              async signTransaction(
                ...given: { account: { address: string }; transaction: Uint8Array; chain?: string }[]
              ) {
                return Promise.all(
                  given.map(async (input) => {
                    inputs.push({ chain: input.chain });
                    assert.equal(input.account, account, 'the wallet’s own account object');
                    let transaction = getTransactionDecoder().decode(input.transaction);
                    if (options.tamper) {
                      const messageBytes = new Uint8Array(transaction.messageBytes);
                      messageBytes[messageBytes.length - 1]! ^= 1;
                      transaction = {
                        ...transaction,
                        messageBytes: messageBytes as unknown as typeof transaction.messageBytes,
                      };
                    }
                    const signed = await partiallySignTransaction([signer.keyPair], transaction);
                    return { signedTransaction: getTransactionEncoder().encode(signed) as Uint8Array };
                  }),
                );
              },
            },
          },
  };
}

describe('sdkWallet.actions', () => {
  describe('eip155, with anvil’s unlocked account behind a real EIP-1193 provider', () => {
    useChainSnapshots();
    let rpcUrl: string;
    let provider: RecordingProvider;
    before(async () => {
      rpcUrl = (await sharedLocalChain()).config.rpcUrl;
    });
    beforeEach(() => {
      provider = recordingProvider(anvilProvider(rpcUrl));
    });

    it('eth_signTypedData_v4: the params as given; the answer is the buyer’s 65-byte signature', async () => {
      const action = signTypedData(ANVIL_BUYER);
      const signature = await performWalletRpc(action.data, { eip155: provider });
      assert.match(signature, /^0x[0-9a-f]{130}$/);
      assert.deepEqual(provider.calls, [
        { method: 'eth_chainId' },
        { method: 'eth_signTypedData_v4', params: action.data.params },
      ]);
      const typed = JSON.parse(transferTypedData(ANVIL_BUYER, 31337));
      const { EIP712Domain: _, ...types } = typed.types;
      const signer = await recoverTypedDataAddress({ ...typed, types, signature: signature as Hex });
      assert.equal(signer, ANVIL_BUYER);
    });

    it('eth_sendTransaction: the provider signs and sends; the answer is the mined transaction’s hash', async () => {
      const tx = { from: ANVIL_BUYER, to: LOCAL_SETTLEMENT, data: '0x', value: '0x2a' };
      const hash = await performWalletRpc(
        { chain_id: 'eip155:31337', method: 'eth_sendTransaction', params: [tx] },
        { eip155: provider },
      );
      assert.match(hash, /^0x[0-9a-f]{64}$/);
      const receipt = await receiptOf((await sharedLocalChain()).clients.public, hash as Hex);
      assert.equal(receipt.status, 'success');
      assert.equal(receipt.to?.toLowerCase(), LOCAL_SETTLEMENT.toLowerCase());
    });

    it('a provider on another chain is chain_mismatch: only eth_chainId was asked, nothing signed', async () => {
      const error = await payError(
        performWalletRpc(signTypedData(ANVIL_BUYER, 8453).data, { eip155: provider }, { actionIndex: 2 }),
        'chain_mismatch',
      );
      assert.equal(error.actionIndex, 2);
      assert.match(error.message, /eip155:8453.*eip155:31337/);
      assert.deepEqual(
        provider.calls.map((c) => c.method),
        ['eth_chainId'],
      );
    });

    it('an answer that is not the method’s result is invalid_signer_result', async () => {
      const odd = { request: async ({ method }: { method: string }) => (method === 'eth_chainId' ? '0x7a69' : 'ok') };
      await payError(performWalletRpc(signTypedData(ANVIL_BUYER).data, { eip155: odd }), 'invalid_signer_result');
    });
  });

  describe('solana_signTransaction', () => {
    let buyer: KeyPairSigner;
    let merchant: KeyPairSigner;
    before(async () => {
      buyer = await generateKeyPairSigner();
      merchant = await generateKeyPairSigner();
    });

    it('a kit signer signs the transaction as given; the answer is the complete signed transaction, base64', async () => {
      const transaction = solanaTransfer(buyer.address, merchant.address);
      const result = await performWalletRpc(signSolana(transaction), { solana: buyer });
      const before = decode(transaction);
      const after = decode(result);
      assert.deepEqual(after.messageBytes, before.messageBytes, 'the message is unchanged');
      const signature = after.signatures[buyer.address] as SignatureBytes;
      assert.ok(await verifySignature(buyer.keyPair.publicKey, signature, after.messageBytes));
      assert.notEqual(result, transaction);
    });

    it('signs its own part of a transaction that other signers complete (a partial signature)', async () => {
      const transaction = solanaTransfer(buyer.address, merchant.address, [merchant.address]);
      const after = decode(await performWalletRpc(signSolana(transaction), { solana: buyer }));
      assert.ok(after.signatures[buyer.address]);
      assert.equal(after.signatures[merchant.address], null, 'the other signer’s slot stays empty');
    });

    it('a wallet-standard wallet signs through solana:signTransaction, with the cluster named', async () => {
      const wallet = standardWallet(buyer);
      const transaction = solanaTransfer(buyer.address, merchant.address);
      const after = decode(await performWalletRpc(signSolana(transaction), { solana: wallet }));
      assert.ok(await verifySignature(buyer.keyPair.publicKey, after.signatures[buyer.address]!, after.messageBytes));
      assert.deepEqual(wallet.inputs, [{ chain: 'solana:mainnet' }]);
    });

    it('a signer that is not one of the transaction’s is signer_mismatch', async () => {
      const transaction = solanaTransfer(merchant.address, buyer.address);
      await payError(performWalletRpc(signSolana(transaction), { solana: buyer }), 'signer_mismatch');
      await payError(performWalletRpc(signSolana(transaction), { solana: standardWallet(buyer) }), 'signer_mismatch');
    });

    it('a wallet that changes the transaction is invalid_signer_result: it must sign exactly what it was given', async () => {
      const transaction = solanaTransfer(buyer.address, merchant.address);
      const error = await payError(
        performWalletRpc(signSolana(transaction), { solana: standardWallet(buyer, { tamper: true }) }),
        'invalid_signer_result',
      );
      assert.match(error.message, /changed the transaction/);
    });

    it('signers that cannot sign without sending, or wallets without the feature, are refused as missing_signer', async () => {
      const sending: TransactionSendingSigner = {
        address: buyer.address,
        signAndSendTransactions: async () => assert.fail('never broadcast'),
      };
      const transaction = solanaTransfer(buyer.address, merchant.address);
      await payError(performWalletRpc(signSolana(transaction), { solana: sending }), 'missing_signer');
      await payError(
        performWalletRpc(signSolana(transaction), { solana: standardWallet(buyer, { feature: false }) }),
        'missing_signer',
      );
    });

    it('params that are not [{ transaction: <base64 transaction> }] are invalid_action', async () => {
      await payError(performWalletRpc(signSolana('not a transaction'), { solana: buyer }), 'invalid_action');
      await payError(
        performWalletRpc({ ...signSolana('AA=='), params: ['AA=='] }, { solana: buyer }),
        'invalid_action',
      );
    });
  });
});
