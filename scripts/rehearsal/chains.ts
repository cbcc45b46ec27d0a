/**
 * The rehearsal's chains, as a process of their own (the Paygate processes reach them by URL only, through a chain
 * file, the way an operator's processes reach their RPC providers): anvil from @foundry-rs/anvil's binary with TUSD
 * and Multicall3, and the local Solana JSON-RPC endpoint (LiteSVM). It prints one JSON line describing them, then
 * serves a loopback faucet (`POST /fund`) for the rehearsal's buyers, and stops both chains on SIGTERM.
 *
 * Run: node --import tsx --conditions=@paygate/source scripts/rehearsal/chains.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Decoder, type Address as SolanaAddress } from '@solana/kit';
import type { Address } from 'viem';
import { startAnvilChain, startLocalSolanaChain } from '@paygate/devchain';
import { localChainConfig } from '../../server/src/chains/eip155/localConfig.js';
import { localSolanaConfig } from '../../server/src/chains/solana/localConfig.js';

const anvil = await startAnvilChain({ blockTimeMs: 1000 });
const solana = await startLocalSolanaChain();

/** The fee payer's 64-byte key pair (private then public), base58, as a chain file's `feePayerKey` takes it. */
async function feePayerKey(): Promise<string> {
  const { privateKey, publicKey } = solana.feePayer.keyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', privateKey));
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', publicKey));
  return getBase58Decoder().decode(new Uint8Array([...pkcs8.slice(-32), ...raw]));
}

// Configuration entries as `PAYGATE_CHAINS=local` would make them, minus what is secret: the chain file carries
// placeholders for the relayer and fee-payer keys, whose values the rehearsal writes into secret files.
const evm = localChainConfig(anvil, anvil.testUsd);
const { namespace: _e, chainId: _c, ...evmEntry } = evm;
const { namespace: _s, ...solanaEntry } = localSolanaConfig(solana);

const faucet = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (d: string) => (body += d));
  req.on('end', () => {
    void (async () => {
      try {
        const f = JSON.parse(body) as { chain: 'evm' | 'solana'; address: string; tusd?: string; native?: string };
        if (f.chain === 'evm') {
          if (f.tusd) await anvil.faucet.mintTestUsd(f.address as Address, BigInt(f.tusd));
          if (f.native) await anvil.faucet.sendEther(f.address as Address, BigInt(f.native));
        } else {
          const owner = f.address as SolanaAddress;
          if (f.native) await solana.faucet.airdropSol(owner, BigInt(f.native));
          if (f.tusd) await solana.faucet.mintTokens(owner, solana.mints.tusd.address, BigInt(f.tusd));
        }
        res.writeHead(204).end();
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
      }
    })();
  });
});
faucet.listen(0, '127.0.0.1');
await new Promise((resolve) => faucet.once('listening', resolve));

process.stdout.write(
  JSON.stringify({
    faucetUrl: `http://127.0.0.1:${(faucet.address() as AddressInfo).port}`,
    evm: { entry: { ...evmEntry, relayerKey: '${PAYGATE_RELAYER_KEY}' }, relayerKey: anvil.keys.relayer },
    solana: {
      entry: { ...solanaEntry, feePayerKey: '${PAYGATE_SOLANA_FEE_PAYER_KEY}' },
      feePayerKey: await feePayerKey(),
    },
  }) + '\n',
);

const stop = async () => {
  faucet.close();
  await Promise.allSettled([anvil.stop(), solana.stop()]);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
