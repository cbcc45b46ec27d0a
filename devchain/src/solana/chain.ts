/**
 * The local Solana chain: LiteSVM in this process behind a Solana JSON-RPC endpoint on a loopback port, with Paygate
 * Test USD (TUSD) minted by the faucet. The gateway's Solana adapter talks to it exactly as to devnet or mainnet (plain
 * RPC through @solana/kit); README.md beside this file lists the methods it implements.
 */
import { lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { Faucet, type LocalSolanaFaucet } from './faucet.js';
import { localSolanaGenesisHash, localSolanaSigner, solanaCaip2FromGenesisHash } from './genesis.js';
import { LocalLedger } from './ledger.js';
import { LOCAL_SOLANA_CORE_VERSION } from './rpcMethods.js';
import { startRpcServer } from './rpcServer.js';

export {
  LOCAL_SOLANA_GENESIS_SEED,
  LOCAL_SOLANA_KEY_SEEDS,
  localSolanaPrivateKey,
  solanaCaip2FromGenesisHash,
} from './genesis.js';
export type { LocalSolanaKeyName } from './genesis.js';
export type { LocalSolanaFaucet } from './faucet.js';

export const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The faucet's genesis balance. */
export const FAUCET_GENESIS_LAMPORTS = 500_000_000n * LAMPORTS_PER_SOL;
/** What the faucet sends the fee payer at start. */
export const FEE_PAYER_START_LAMPORTS = 1_000n * LAMPORTS_PER_SOL;

export interface LocalSolanaMint {
  address: Address;
  decimals: 6;
  symbol: 'TUSD';
  name: 'Paygate Test USD';
}

export interface LocalSolanaChainOptions {
  /** Wall-clock milliseconds per slot (400, Solana's target, by default). */
  slotMs?: number;
  /** The clock, for tests that drive time (Date.now by default). */
  now?: () => number;
  /** The loopback port to listen on (a free one by default). */
  port?: number;
  /** Landed transactions kept for status and history queries (20,000 by default); older ones are forgotten. */
  historyCapacity?: number;
}

export interface LocalSolanaChain {
  /** `solana:` + the first 32 characters of the genesis hash. */
  caip2: `solana:${string}`;
  genesisHash: string;
  /** The JSON-RPC endpoint, e.g. http://127.0.0.1:40123. */
  rpcUrl: string;
  /** Transactions land confirmed at once and finalize 32 slots (~13 s) later. */
  commitment: 'confirmed';
  /** The relayer: pays the gateway's transaction fees; funded with 1,000 SOL by the faucet at start. */
  feePayer: KeyPairSigner;
  /** The demo merchant's settlement owner (its TUSD goes to this owner's associated token account). */
  settlementOwner: KeyPairSigner;
  /** The faucet's key: the genesis SOL and TUSD's mint authority. */
  faucetAuthority: KeyPairSigner;
  mints: { tusd: LocalSolanaMint };
  faucet: LocalSolanaFaucet;
  /** The same controls as the `paygate_*` RPC methods, for in-process tests. */
  test: {
    /** Makes every blockhash handed out so far, and the current one, unusable now. */
    expireBlockhash(): void;
    /** While held, sendTransaction accepts transactions (after preflight) and drops them: they never land. */
    holdTransactions(hold: boolean): void;
    /** Advances the clock by this many slots (blocks); an issued blockhash expires once its last valid height passes. */
    warpSlots(slots: bigint): void;
  };
  /** What getVersion answers as `solana-core`. */
  version: string;
  /** Stops the endpoint; the chain's state is gone (it lives in memory only). */
  stop(): Promise<void>;
}

/**
 * Starts LiteSVM, funds the faucet and fee payer at genesis, creates TUSD (6 decimals, the faucet as mint authority,
 * no freeze authority) with a real transaction, then serves the RPC endpoint on a free loopback port.
 */
export async function startLocalSolanaChain(options: LocalSolanaChainOptions = {}): Promise<LocalSolanaChain> {
  const ledger = new LocalLedger({
    slotMs: options.slotMs,
    now: options.now,
    historyCapacity: options.historyCapacity,
  });
  const [faucetAuthority, feePayer, settlementOwner, tusdMint] = await Promise.all([
    localSolanaSigner('faucet'),
    localSolanaSigner('feePayer'),
    localSolanaSigner('settlement'),
    localSolanaSigner('tusdMint'),
  ]);
  // The genesis allocation, as a cluster's genesis config funds its first accounts; the rest moves by transactions.
  ledger.svm.setAccount({
    address: faucetAuthority.address,
    lamports: lamports(FAUCET_GENESIS_LAMPORTS),
    programAddress: SYSTEM_PROGRAM_ADDRESS,
    executable: false,
    data: new Uint8Array(),
    space: 0n,
  });
  const faucet = new Faucet(ledger, faucetAuthority);
  await faucet.airdropSol(feePayer.address, FEE_PAYER_START_LAMPORTS);
  await faucet.createMint(tusdMint, 6);

  const genesisHash = localSolanaGenesisHash();
  const server = await startRpcServer(
    { ledger, faucet, genesisHash, apiVersion: LOCAL_SOLANA_CORE_VERSION },
    { port: options.port },
  );
  return {
    caip2: solanaCaip2FromGenesisHash(genesisHash),
    genesisHash,
    rpcUrl: server.url,
    commitment: 'confirmed',
    feePayer,
    settlementOwner,
    faucetAuthority,
    mints: { tusd: { address: tusdMint.address, decimals: 6, symbol: 'TUSD', name: 'Paygate Test USD' } },
    faucet: {
      airdropSol: (owner, lamports) => faucet.airdropSol(owner, lamports),
      mintTokens: (owner, mint, amount) => faucet.mintTokens(owner, mint, amount),
    },
    test: {
      expireBlockhash: () => {
        ledger.sync();
        ledger.expireBlockhash();
      },
      holdTransactions: (hold) => ledger.holdTransactions(hold),
      warpSlots: (slots) => ledger.warpSlots(slots),
    },
    version: LOCAL_SOLANA_CORE_VERSION,
    stop: server.close,
  };
}
