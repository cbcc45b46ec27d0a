/**
 * Checkout tests on the run's shared anvil: a gateway harness serving the local chain, buyers with real keys funded
 * by the faucet, and the calls of the checkout (options, fetch, confirm) plus the jobs that follow a confirm.
 */
import {
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  type Account,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type Transport,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Chains } from '../../server/src/chains/index.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import type { LocalSolanaChain } from '@paygate/devchain';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { components } from '../../server/src/generated/gateway.js';
import { sharedChains } from '../helpers/chain.js';
import { driveJobsUntil } from '../helpers/wait.js';
import { expectJson, startGatewayHarness, type GatewayHarness, type GatewayHarnessOptions } from './harness.js';

export type PaymentOption = components['schemas']['PaymentOption'];
export type OptionsAnswer = components['schemas']['GetPaymentOptionsResponse'];
export type StatusAnswer = components['schemas']['PaymentStatusResponse'];

/** anvil account #1: where the demo merchant is paid. */
export const SETTLEMENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const LOCAL = 'eip155:31337';

export interface Buyer {
  account: PrivateKeyAccount;
  caip10: string;
  wallet: WalletClient<Transport, Chain, Account>;
}

export interface SolanaBuyer {
  signer: KeyPairSigner;
  caip10: string;
}

export interface CheckoutHarness extends GatewayHarness {
  chains: Chains;
  local: LocalEvmChain;
  solana: LocalSolanaChain;
  /** CAIP-19 of TUSD on the local Solana chain. */
  solanaTusd: string;
  /** A fresh Solana buyer holding `tusd` TUSD minor units (and no SOL: the service pays the fees). */
  solanaBuyer(tusd?: bigint, lamports?: bigint): Promise<SolanaBuyer>;
  tusd: string;
  /** The TUSD balance of an address on the local EVM chain. */
  tusdBalance(address: string): Promise<bigint>;
  /** A fresh buyer holding `tusd` TUSD minor units and 1 ETH for gas. */
  buyer(tusd?: bigint, ether?: bigint): Promise<Buyer>;
  options(paymentId: string, accounts: string[], query?: string): Promise<OptionsAnswer>;
  /** The buyer's option in the given asset (CAIP-19 without the `caip19/` prefix). */
  optionFor(paymentId: string, buyer: Buyer, asset: string): Promise<PaymentOption>;
  confirm(paymentId: string, body: unknown, query?: string): Promise<Response>;
  /** Runs the jobs that are due by the business clock. */
  drain(): Promise<number>;
  /**
   * Runs the due jobs, moving the business clock by a recheck interval between rounds, until the payment's status is
   * `status` (test/helpers/wait.ts): a relay and the watch at depth take as many rounds as the chain needs.
   */
  settle(paymentId: string, status: string): Promise<StatusAnswer>;
}

export async function startCheckoutHarness(
  options: GatewayHarnessOptions & { chains?: Chains } = {},
): Promise<CheckoutHarness> {
  const chains = options.chains ?? (await sharedChains());
  const local = (await sharedChains()).local!.evm;
  const solana = (await sharedChains()).local!.solana;
  // The business clock starts at the chain's time, so deadlines signed into authorizations mean the same to both.
  const block = await local.clients.public.getBlock();
  const harness = await startGatewayHarness({
    ...options,
    chains,
    clockStart: Number(block.timestamp) * 1000,
    merchant: {
      settlementAddresses: { [LOCAL]: SETTLEMENT, [solana.caip2]: solana.settlementOwner.address },
      ...options.merchant,
    },
  });
  const tusd = `${LOCAL}/erc20:${local.testUsd}`;
  const options_ = async (paymentId: string, accounts: string[], query = ''): Promise<OptionsAnswer> =>
    expectJson<OptionsAnswer>(
      await harness.call('POST', `/v1/gateway/payment/${paymentId}/options${query}`, { body: { accounts } }),
      200,
    );
  return {
    ...harness,
    chains,
    local,
    tusd,
    solana,
    tusdBalance: (address) =>
      local.clients.public.readContract({
        address: local.testUsd,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [getAddress(address)],
      }),
    solanaTusd: `${solana.caip2}/token:${solana.mints.tusd.address}`,
    async solanaBuyer(tusdAmount = 100_000_000n, lamports = 0n) {
      const signer = await generateKeyPairSigner();
      if (tusdAmount > 0n) await solana.faucet.mintTokens(signer.address, solana.mints.tusd.address, tusdAmount);
      if (lamports > 0n) await solana.faucet.airdropSol(signer.address, lamports);
      return { signer, caip10: `${solana.caip2}:${signer.address}` };
    },
    async buyer(tusdAmount = 100_000_000n, ether = 10n ** 18n) {
      const key: Hex = generatePrivateKey();
      const account = privateKeyToAccount(key);
      const caip10 = `${LOCAL}:${account.address}`;
      if (ether > 0n) await fundAccount(chains.local!, { account: caip10, asset: 'native', amount: ether.toString() });
      if (tusdAmount > 0n)
        await fundAccount(chains.local!, { account: caip10, asset: tusd, amount: tusdAmount.toString() });
      const wallet = createWalletClient({ account, chain: local.clients.chain, transport: http(local.config.rpcUrl) });
      return { account, caip10, wallet };
    },
    options: options_,
    async optionFor(paymentId, buyer, asset) {
      const answer = await options_(paymentId, [buyer.caip10]);
      const option = answer.options?.find((o) => o.amount.unit === `caip19/${asset}`);
      if (!option) throw new Error(`no option in ${asset} for ${buyer.caip10}: ${JSON.stringify(answer.options)}`);
      return option;
    },
    confirm(paymentId, body, query = '') {
      return harness.call('POST', `/v1/gateway/payment/${paymentId}/confirm${query}`, { body });
    },
    drain: () => harness.runtime.jobs.drain(),
    settle(paymentId, status) {
      const drive = { clock: harness.clock, drain: () => harness.runtime.jobs.drain() };
      return driveJobsUntil(`payment ${paymentId} to be ${status}`, drive, async () => {
        const answer = await expectJson<StatusAnswer>(
          await harness.call('GET', `/v1/gateway/payment/${paymentId}/status`),
          200,
        );
        if (answer.status === status) return answer;
        if (answer.isFinal) throw new Error(`payment ${paymentId} ended ${answer.status}, not ${status}`);
        return undefined;
      });
    },
  };
}

/** The typed data of the option's `eth_signTypedData_v4` action, as viem's `signTypedData` takes it. */
export function typedDataOf(option: PaymentOption) {
  const action = option.actions[0]!;
  if (action.type !== 'walletRpc' || action.data.method !== 'eth_signTypedData_v4') {
    throw new Error(`expected eth_signTypedData_v4, got ${JSON.stringify(action)}`);
  }
  const typed = JSON.parse(action.data.params[1] as string) as {
    domain: Record<string, unknown>;
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  };
  const { EIP712Domain: _domain, ...types } = typed.types;
  return { domain: typed.domain, types, primaryType: typed.primaryType, message: typed.message };
}

/** Signs the option's `eth_signTypedData_v4` action as the buyer's wallet would (the JSON it was given). */
export async function signAction(buyer: Buyer, option: PaymentOption): Promise<Hex> {
  return buyer.wallet.signTypedData({ account: buyer.account, ...typedDataOf(option) });
}

/** Sends the option's `eth_sendTransaction` action as the buyer's wallet would. */
export async function sendAction(buyer: Buyer, option: PaymentOption): Promise<Hex> {
  const action = option.actions[0]!;
  if (action.type !== 'walletRpc' || action.data.method !== 'eth_sendTransaction') {
    throw new Error(`expected eth_sendTransaction, got ${JSON.stringify(action)}`);
  }
  const tx = action.data.params[0] as { to: Hex; data: Hex; value: Hex };
  return buyer.wallet.sendTransaction({ account: buyer.account, to: tx.to, data: tx.data, value: BigInt(tx.value) });
}

/** The shared chains with TUSD served as a plain ERC-20 (no EIP-3009), so its options are direct transfers. */
export function withDirectTusd(chains: Chains, overrides: { confirmations?: number } = {}): Chains {
  return {
    ...chains,
    evm: chains.evm.map((c) => ({
      ...c,
      config: {
        ...c.config,
        confirmations: overrides.confirmations ?? c.config.confirmations,
        assets: c.config.assets.map((a) => (a.address ? { ...a, eip3009: false } : a)),
      },
    })),
  };
}
