/**
 * The local chain's faucet: real transactions from the faucet key (which holds the genesis SOL and is TUSD's mint
 * authority), executed by LiteSVM like any other, and answered once landed. Each carries a numbered memo, so two
 * equal requests within one blockhash are still two transactions rather than a duplicate.
 */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getUtf8Encoder,
  isSome,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import { readMint } from './accounts.js';
import { RpcError } from './errors.js';
import type { LocalLedger } from './ledger.js';
import { decodeWireTransaction } from './transactions.js';

const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;

export interface LocalSolanaFaucet {
  /** Sends `lamports` from the faucet to `owner`; resolves with the landed transaction's signature. */
  airdropSol(owner: Address, lamports: bigint): Promise<Signature>;
  /**
   * Mints `amount` (minor units) of a faucet mint (TUSD) to `owner`'s associated token account, creating the account
   * first if it does not exist; resolves with the landed transaction's signature.
   */
  mintTokens(owner: Address, mint: Address, amount: bigint): Promise<Signature>;
}

export class Faucet implements LocalSolanaFaucet {
  private requests = 0;
  /** One faucet transaction at a time, so each sees the state the previous one left. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ledger: LocalLedger,
    private readonly signer: KeyPairSigner,
  ) {}

  get address(): Address {
    return this.signer.address;
  }

  airdropSol(owner: Address, lamports: bigint): Promise<Signature> {
    const available = this.ledger.getAccount(this.signer.address);
    const balance = available.exists ? BigInt(available.lamports) : 0n;
    if (lamports <= 0n || lamports > balance) {
      return Promise.reject(new Error(`the faucet can send between 1 and ${balance} lamports`));
    }
    return this.send([getTransferSolInstruction({ source: this.signer, destination: owner, amount: lamports })]);
  }

  async mintTokens(owner: Address, mint: Address, amount: bigint): Promise<Signature> {
    const decoded = readMint(this.ledger.getAccount(mint));
    const authority = decoded && isSome(decoded.mintAuthority) ? decoded.mintAuthority.value : null;
    if (!decoded || authority !== this.signer.address) throw new Error(`${mint} is not a mint of the local faucet`);
    const [token] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    return this.send([
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: this.signer, owner, mint, ata: token }),
      getMintToCheckedInstruction({ mint, token, mintAuthority: this.signer, amount, decimals: decoded.decimals }),
    ]);
  }

  /** Creates and initialises a mint whose authority is the faucet (at start: TUSD). */
  createMint(mint: KeyPairSigner, decimals: number): Promise<Signature> {
    const space = BigInt(getMintSize());
    return this.send([
      getCreateAccountInstruction({
        payer: this.signer,
        newAccount: mint,
        lamports: this.ledger.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: this.signer.address }),
    ]);
  }

  private send(instructions: Instruction[]): Promise<Signature> {
    const run = this.queue.then(() => this.sendNow(instructions));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async sendNow(instructions: Instruction[]): Promise<Signature> {
    const memo: Instruction = {
      programAddress: MEMO_PROGRAM_ADDRESS,
      data: getUtf8Encoder().encode(`paygate local faucet #${++this.requests}`),
    };
    // Signing is asynchronous, so the blockhash may expire in between; a fresh one is then fetched once.
    for (let attempt = 1; ; attempt++) {
      this.ledger.sync();
      const blockhash = this.ledger.svm.latestBlockhash() as Blockhash;
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(this.signer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: 0n }, m),
        (m) => appendTransactionMessageInstructions([...instructions, memo], m),
      );
      const signed = await signTransactionMessageWithSigners(message);
      const decoded = decodeWireTransaction(getBase64EncodedWireTransaction(signed), 'base64');
      try {
        const signature = this.ledger.send(decoded, { ignoreHold: true });
        return signature as Signature;
      } catch (err) {
        const expired =
          err instanceof RpcError && (err.data as { err?: unknown } | undefined)?.err === 'BlockhashNotFound';
        if (!expired || attempt >= 2) throw err;
      }
    }
  }
}
