/**
 * The checkout on Solana: the `solana` ChainAdapter. The wallet signs but never broadcasts: an option holds one
 * `build` action, which fetch turns into a transaction built at that moment (fresh blockhash); confirm checks the
 * signed transaction against the one it rebuilds from the option and the signed blockhash, adds the fee payer's
 * signature and broadcasts; a watch job polls `getSignatureStatuses` at the chain's commitment.
 */
import { createHash } from 'node:crypto';
import {
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  verifySignature,
  type Address,
  type Blockhash,
  type Signature,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { ApiError } from '../../errors.js';
import { isEndpointFailure } from '../rpcPost.js';
import type { Action, ChainAdapter, ClaimDraft, Holding, VerifiedOption } from '../adapter.js';
import { solanaAccountRules } from './accountRules.js';
import type { SolanaChain } from './client.js';
import { landedSlotOf, unknownSignature } from './landing.js';
import { associatedTokenAccount, mintOf, paymentTransaction, solanaAddressOf } from './transfer.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE58_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;
/** A slot is ~400 ms; a payment is final within a few slots at `confirmed`. */
const ETA_S: Record<'confirmed' | 'finalized', number> = { confirmed: 2, finalized: 15 };
const RECHECK_MS = 1_000;

function refuse(message: string): never {
  throw new ApiError('params_validation', message);
}

/** The build action's data: names its chain (so mixed options can be split) and is bound to the option. */
export function buildDataOf(option: VerifiedOption): string {
  const head = Buffer.from(JSON.stringify({ k: 'solana_transfer', c: option.claims.chain })).toString('base64url');
  const tag = createHash('sha256').update('paygate:build:').update(option.mac).digest().subarray(0, 12);
  return `bld_${head}.${tag.toString('base64url')}`;
}

/** An SPL token account's amount: a little-endian u64 at byte 64 of its data. */
function tokenAmountOf(data: string | undefined): bigint {
  if (!data) return 0n;
  const bytes = Buffer.from(data, 'base64');
  return bytes.length >= 72 ? bytes.readBigUInt64LE(64) : 0n;
}

export function decodeSignedTransaction(output: string): Transaction {
  if (BASE58_SIGNATURE.test(output)) {
    refuse('results[0] is a signature; solana_signTransaction needs the complete signed transaction, base64.');
  }
  if (!BASE64.test(output)) refuse('results[0] must be the signed transaction, base64.');
  const bytes = Buffer.from(output, 'base64');
  if (bytes.length === 64) {
    refuse('results[0] is a detached signature; send the complete signed transaction, base64.');
  }
  try {
    return getTransactionDecoder().decode(bytes);
  } catch {
    refuse('results[0] is not a Solana transaction.');
  }
}

/** The compiled message of a decoded transaction; bytes that are not one are the caller's error, never a 500. */
function decodeMessage(bytes: Transaction['messageBytes']) {
  try {
    return getCompiledTransactionMessageDecoder().decode(bytes);
  } catch {
    refuse('results[0] is not a Solana transaction: its message cannot be read.');
  }
}

/**
 * Whether the transaction carries `signer`'s valid signature. A key or signature the platform's Ed25519 refuses (an
 * off-curve account, say) is not a signature of the account: the caller's error, never a 500.
 */
async function signedBy(signer: Address, transaction: Transaction): Promise<boolean> {
  const signature = transaction.signatures[signer];
  if (signature == null) return false;
  try {
    return await verifySignature(
      await getPublicKeyFromAddress(signer),
      signature as SignatureBytes,
      transaction.messageBytes,
    );
  } catch {
    return false;
  }
}

export interface PaymentTransactionCheck {
  /** Confirm's transactions are v0; Solana Pay's are legacy (transfer.ts). */
  version: 0 | 'legacy';
  /** `unsigned`: the wallet's copy, which the service co-signs (confirm); `signed`: one already on chain (Solana Pay). */
  feePayer: 'unsigned' | 'signed';
}

/**
 * Whether a signed transaction is exactly the one the option builds at its blockhash (same instructions, accounts,
 * amounts, mint, recipient, reference and fee payer) and carries the buyer's valid signature: the one check behind
 * confirm and the Solana Pay watcher. Throws `params_validation` for anything else.
 */
export async function checkPaymentTransaction(
  option: VerifiedOption,
  chain: SolanaChain,
  signed: Transaction,
  check: PaymentTransactionCheck,
): Promise<{ blockhash: Blockhash }> {
  const message = decodeMessage(signed.messageBytes);
  const blockhash = message.lifetimeToken as Blockhash;
  const expected = await paymentTransaction(
    option,
    chain.feePayer.address,
    { blockhash, lastValidBlockHeight: 0n },
    check.version,
  );
  if (Buffer.compare(Buffer.from(expected.messageBytes), Buffer.from(signed.messageBytes)) !== 0) {
    refuse('results[0] is not the transaction this option builds (amount, recipient, mint or instructions differ).');
  }
  if (check.feePayer === 'unsigned' && signed.signatures[chain.feePayer.address] != null) {
    refuse('results[0] carries a fee payer signature; the service signs as fee payer itself.');
  }
  if (check.feePayer === 'signed' && !(await signedBy(chain.feePayer.address, signed))) {
    refuse('The transaction does not carry the service\u2019s fee payer signature.');
  }
  const buyer = solanaAddressOf(option.claims.account);
  if (!(await signedBy(buyer, signed))) refuse(`results[0] is not signed by the option's account ${buyer}.`);
  return { blockhash };
}

export function createSolanaAdapter(chains: SolanaChain[]): ChainAdapter {
  const chainOf = (caip2: string): SolanaChain => {
    const chain = chains.find((c) => c.config.caip2 === caip2);
    if (!chain) throw new ApiError('params_validation', `This server no longer serves ${caip2}.`);
    return chain;
  };

  async function balances(chain: SolanaChain, owner: Address): Promise<bigint[]> {
    const { config, rpc } = chain;
    const tokenAccounts = await Promise.all(
      config.assets.map((a) => (a.mint ? associatedTokenAccount(owner, a.mint) : null)),
    );
    const [lamports, accounts] = await Promise.all([
      rpc.getBalance(owner, { commitment: config.commitment }).send(),
      rpc
        .getMultipleAccounts(
          tokenAccounts.filter((a): a is Address => a !== null),
          { encoding: 'base64', commitment: config.commitment },
        )
        .send(),
    ]);
    let next = 0;
    return config.assets.map((asset) => {
      if (!asset.mint) return lamports.value;
      const account = accounts.value[next++];
      return tokenAmountOf(account?.data[0]);
    });
  }

  async function broadcast(chain: SolanaChain, wire: string, signature: Signature): Promise<void> {
    try {
      await chain.rpc
        .sendTransaction(wire as never, { encoding: 'base64', preflightCommitment: chain.config.commitment })
        .send();
    } catch (err) {
      // A repeat of a transaction that already landed (a retried confirm, a concurrent one) is not an error.
      const status = await chain.rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
      if (status.value[0]) return;
      // No endpoint took the send: an outage, not a transaction that would fail; the HTTP layer answers 503 and the
      // wallet confirms the same bytes again (§27.18).
      if (isEndpointFailure(err)) throw err;
      const message = (err as Error).message ?? String(err);
      if (/blockhash/i.test(message)) {
        refuse('The transaction\u2019s blockhash has expired; fetch the action again and sign the new transaction.');
      }
      refuse(`The transaction would fail on ${chain.config.caip2}: ${message.slice(0, 200)}`);
    }
  }

  return {
    ...solanaAccountRules,

    // The buyer signs the transfer itself; the service only co-signs and broadcasts it.
    terms: () => ({ settledByService: false }),

    async holdings({ accounts, live, settlement }) {
      const mode = live ? 'live' : 'test';
      const unavailable = new Set<string>();
      const perAccount = await Promise.all(
        accounts.map(async (account): Promise<Holding[]> => {
          const caip2 = account.slice(0, account.lastIndexOf(':'));
          const chain = chains.find((c) => c.config.caip2 === caip2 && c.config.mode === mode);
          const recipient = settlement[caip2];
          if (!chain || !recipient) return [];
          let values: bigint[];
          try {
            values = await balances(chain, solanaAddressOf(account));
          } catch {
            // An unreachable chain yields no options rather than failing the whole answer; the answer names it.
            unavailable.add(caip2);
            return [];
          }
          return chain.config.assets.map((asset, i) => ({
            account,
            chain: caip2,
            kind: 'solana' as const,
            recipient,
            balance: values[i] ?? 0n,
            etaS: ETA_S[chain.config.commitment],
            asset: {
              caip19: asset.caip19,
              decimals: asset.decimals,
              symbol: asset.symbol,
              name: asset.name,
              peg: asset.peg,
              iconUrl: asset.iconUrl,
              networkIconUrl: asset.networkIconUrl,
              networkName: asset.networkName,
            },
          }));
        }),
      );
      return { holdings: perAccount.flat(), unavailable: [...unavailable] };
    },

    async actions(option): Promise<Action[]> {
      return [{ type: 'build', data: { data: buildDataOf(option) } }];
    },

    async resolveBuild(option, data) {
      if (data !== buildDataOf(option)) refuse('data is not a build action of this option.');
      const chain = chainOf(option.claims.chain);
      const { value } = await chain.rpc.getLatestBlockhash({ commitment: chain.config.commitment }).send();
      const transaction = await paymentTransaction(option, chain.feePayer.address, value);
      return [
        {
          type: 'walletRpc',
          data: {
            chain_id: option.claims.chain,
            method: 'solana_signTransaction',
            params: [{ transaction: getBase64EncodedWireTransaction(transaction) }],
          },
        },
      ];
    },

    async verify(option, results): Promise<ClaimDraft> {
      if (results.length !== 1) refuse(`results has ${results.length} items but the option has 1 action.`);
      const outputs = results[0]!;
      if (outputs.length !== 1) refuse(`results[0] must hold one signed transaction, not ${outputs.length}.`);
      const chain = chainOf(option.claims.chain);
      const signed = decodeSignedTransaction(outputs[0]!);
      // The fee payer's slot is ours to fill: anything in it is not what this option built.
      const { blockhash } = await checkPaymentTransaction(option, chain, signed, { version: 0, feePayer: 'unsigned' });
      const fresh = await chain.rpc.isBlockhashValid(blockhash, { commitment: 'processed' }).send();
      if (!fresh.value) {
        refuse('The transaction\u2019s blockhash has expired; fetch the action again and sign the new transaction.');
      }
      const complete = await partiallySignTransaction([chain.feePayer.keyPair], signed);
      const signature = getSignatureFromTransaction(complete);
      const wire = getBase64EncodedWireTransaction(complete);
      return {
        claimKey: `${chain.config.caip2}:tx:${signature}`,
        kind: 'solana',
        txId: signature,
        // The signed bytes, so the watch can send them again (the same signature) while a dropped send can still land.
        details: { signature, blockhash, mint: mintOf(option.claims.asset), wire },
        next: 'watch',
        minedAt: null,
        excess: 0n,
        broadcast: () => broadcast(chain, wire, signature),
      };
    },

    async submit(claim) {
      return { txId: claim.txId };
    },

    async progress(claim) {
      const chain = chainOf(claim.chain);
      const signature = claim.txId as Signature;
      const read = async () =>
        (await chain.rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()).value[0];
      let status = await read();
      if (!status) {
        const blockhash = claim.details.blockhash as Blockhash;
        const fresh = await chain.rpc.isBlockhashValid(blockhash, { commitment: 'processed' }).send();
        if (fresh.value) {
          // Not seen yet while it can still land: a node may have dropped the broadcast, so the same signed bytes go
          // out again (as wallets rebroadcast until the blockhash expires). A repeat of a landed one is harmless.
          const wire = claim.details.wire;
          if (typeof wire === 'string') {
            await chain.rpc
              .sendTransaction(wire as never, {
                encoding: 'base64',
                skipPreflight: true,
                preflightCommitment: chain.config.commitment,
              })
              .send()
              .catch(() => undefined);
          }
          return { state: 'pending', recheckInMs: RECHECK_MS };
        }
        // Expired: the transaction can no longer land. One more look, in case it landed in the meantime.
        status = await read();
        if (!status)
          return { state: 'failed', reason: `Transaction ${signature} never landed before its blockhash expired.` };
      }
      if (status.err) return { state: 'failed', reason: `Transaction ${signature} failed on chain.`, txId: signature };
      const final =
        status.confirmationStatus === 'finalized' ||
        (chain.config.commitment === 'confirmed' && status.confirmationStatus === 'confirmed');
      if (!final) return { state: 'pending', recheckInMs: RECHECK_MS };
      // The slot it landed in, for direct settlement's finality: a signature nobody knows later is gone only once it
      // can no longer land, counted from this slot (§27.30). A Solana Pay transaction the wallet sent has no other.
      return { state: 'succeeded', txId: signature, details: { ...claim.details, landedSlot: String(status.slot) } };
    },

    async finality(caip2, txId, claimDetails) {
      const chain = chainOf(caip2);
      const [status] = (
        await chain.rpc.getSignatureStatuses([txId as Signature], { searchTransactionHistory: true }).send()
      ).value;
      if (status?.err) return 'gone';
      // Unknown to every in-sync endpoint (§27.4): gone only once it can no longer land (§27.22); until then it is
      // as pending as a landed one, so nothing logs or counts it as gone.
      if (!status) return (await unknownSignature(chain, landedSlotOf(claimDetails))) === 'gone' ? 'gone' : 'pending';
      // The chain's own finality, whatever commitment the chain's payments succeed at.
      return status.confirmationStatus === 'finalized' ? 'final' : 'pending';
    },
  };
}
