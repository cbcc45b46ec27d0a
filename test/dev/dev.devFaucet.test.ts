import assert from 'node:assert/strict';
import { getAddress, parseEther, parseEventLogs, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TestUSD, evmFaucet } from '@paygate/devchain';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import type { Chains } from '../../server/src/chains/index.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import { deadRpcUrl, sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import type { Listening } from '../helpers/http.js';
import { createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { devServer, postJson } from './harness.js';
import { receiptOf, transactionOf } from '../helpers/wait.js';

describe('dev.devFaucet', () => {
  useChainSnapshots();

  let server: Listening;
  let chain: LocalEvmChain;
  let tusd: string;
  before(async () => {
    chain = await sharedLocalChain();
    tusd = `eip155:31337/erc20:${chain.testUsd}`;
    server = await devServer(await sharedChains());
  });
  after(() => server?.close());

  const faucet = (body: unknown) => postJson(`${server.url}/v1/dev/faucet`, body);
  const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;
  const ether = (address: Address) => chain.clients.public.getBalance({ address });
  const tokens = (address: Address) =>
    chain.clients.public.readContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'balanceOf',
      args: [address],
    });

  async function expect400(body: unknown, code: string, message?: RegExp): Promise<void> {
    const res = await faucet(body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, code);
    if (message) assert.match(String(res.body.message), message);
  }

  describe('200', () => {
    it('mints TUSD to a fresh account, with ether for its gas, and answers once mined', async () => {
      const account = freshAddress();
      const res = await faucet({ account: `eip155:31337:${account}`, asset: tusd, amount: '100000000' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(String(res.body.txId), /^0x[0-9a-f]{64}$/);
      assert.equal(await tokens(account), 100_000_000n);
      assert.equal(await ether(account), parseEther('1'));

      const receipt = await receiptOf(chain.clients.public, res.body.txId as Hash);
      assert.equal(receipt.status, 'success');
      const [transfer] = parseEventLogs({ abi: TestUSD.abi, logs: receipt.logs, eventName: 'Transfer' });
      assert.equal(transfer?.args.to, account);
    });

    it('funds a fresh Solana account with TUSD (creating its token account) and with SOL', async () => {
      const solana = (await sharedChains()).local!.solana;
      const owner = (await generateKeyPairSigner()).address;
      const tusdMint = solana.mints.tusd.address;
      const minted = await faucet({
        account: `${solana.caip2}:${owner}`,
        asset: `${solana.caip2}/token:${tusdMint}`,
        amount: '2500000',
      });
      assert.equal(minted.status, 200, JSON.stringify(minted.body));
      assert.match(String(minted.body.txId), /^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
      const rpc = createSolanaRpc(solana.rpcUrl);
      const [ata] = await findAssociatedTokenPda({ owner, mint: tusdMint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
      assert.equal((await rpc.getTokenAccountBalance(ata).send()).value.amount, '2500000');
      const sol = await faucet({ account: `${solana.caip2}:${owner}`, asset: 'native', amount: '1000000000' });
      assert.equal(sol.status, 200, JSON.stringify(sol.body));
      assert.equal((await rpc.getBalance(owner).send()).value, 1_000_000_000n);
    });

    it('tops the gas up only to 1 ETH, however often a token is funded', async () => {
      const account = freshAddress();
      const body = { account: `eip155:31337:${account.toLowerCase()}`, asset: tusd.toLowerCase(), amount: '5' };
      assert.equal((await faucet(body)).status, 200);
      assert.equal((await faucet(body)).status, 200);
      assert.equal(await tokens(account), 10n);
      assert.equal(await ether(account), parseEther('1'));
    });

    it('sends native ether and nothing else', async () => {
      const account = freshAddress();
      const res = await faucet({ account: `eip155:31337:${account}`, asset: 'native', amount: '2500000000000000000' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(await ether(account), 2_500_000_000_000_000_000n);
      assert.equal(await tokens(account), 0n);
      const tx = await transactionOf(chain.clients.public, res.body.txId as Hash);
      assert.equal(tx.to, account.toLowerCase());
      assert.equal(getAddress(tx.from), chain.faucet.account.address);
    });

    it('funds the native coin by its CAIP-19 id too', async () => {
      const account = freshAddress();
      const res = await faucet({ account: `eip155:31337:${account}`, asset: 'eip155:31337/slip44:60', amount: '7' });
      assert.equal(res.status, 200);
      assert.equal(await ether(account), 7n);
    });

    it('serves concurrent requests, one transaction after the other', async () => {
      const accounts = [freshAddress(), freshAddress(), freshAddress()];
      const answers = await Promise.all(
        accounts.map((a) => faucet({ account: `eip155:31337:${a}`, asset: tusd, amount: '42' })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
      );
      for (const a of accounts) assert.equal(await tokens(a), 42n);
    });
  });

  describe('400', () => {
    const account = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

    it('params_validation: an account that is not CAIP-10', async () => {
      await expect400(
        { account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', asset: 'native', amount: '1' },
        'params_validation',
        /account/,
      );
    });

    it('params_validation: an account on a chain that is not local', async () => {
      await expect400(
        { account: 'eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8', asset: 'native', amount: '1' },
        'params_validation',
        /^Chain eip155:8453 is not a local development chain\. Local chains are eip155:31337 and solana:\w{32}\.$/,
      );
    });

    it('params_validation: a Solana account on a chain that is not local', async () => {
      await expect400(
        {
          account: 'solana:5zpHnbVUWuvEe4H4uj3uu3YZCdv5AVuj:9jchmG2CGk2ppb7mAF2azpXrrJQq6FWBApBnfWoUovgU',
          asset: 'native',
          amount: '1',
        },
        'params_validation',
        /is not a local development chain/,
      );
    });

    it('params_validation: an address that is not one, or has a broken checksum', async () => {
      await expect400(
        { account: 'eip155:31337:0x1234', asset: 'native', amount: '1' },
        'params_validation',
        /eip155 address/,
      );
      await expect400(
        { account: 'eip155:31337:0x70997970c51812dc3A010C7d01b50e0d17dc79C8', asset: 'native', amount: '1' },
        'params_validation',
        /checksum/,
      );
    });

    it("params_validation: an asset that is not the chain's", async () => {
      await expect400(
        { account, asset: 'eip155:31337/erc20:0x000000000000000000000000000000000000dEaD', amount: '1' },
        'params_validation',
        /is not an asset of chain eip155:31337/,
      );
      await expect400(
        { account, asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '1' },
        'params_validation',
        /is not an asset of chain eip155:31337/,
      );
      await expect400({ account, asset: 'ETH', amount: '1' }, 'params_validation');
    });

    it('params_validation: an amount that is not a positive integer string, or more than the faucet has', async () => {
      for (const amount of ['0', '1.5', '-1', 1000])
        await expect400({ account, asset: tusd, amount }, 'params_validation');
      await expect400(
        { account, asset: 'native', amount: parseEther('1000000').toString() },
        'params_validation',
        /at most/,
      );
      await expect400({ account, asset: tusd, amount: (2n ** 256n).toString() }, 'params_validation', /overflow/);
    });

    it('params_validation: a missing or unknown field', async () => {
      await expect400({ account, asset: tusd }, 'params_validation', /amount/);
      await expect400({ account, asset: tusd, amount: '1', memo: 'hi' }, 'params_validation');
    });

    it('invalid_params: a body that is not JSON', async () => {
      const res = await fetch(`${server.url}/v1/dev/faucet`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"account": ',
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { code: string }).code, 'invalid_params');
    });
  });

  it('413 invalid_params: a body over 256 KiB', async () => {
    const res = await faucet({
      account: 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      asset: 'native',
      amount: '1',
      pad: 'x'.repeat(300_000),
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'invalid_params');
  });

  it('415 invalid_params: a body that is not application/json', async () => {
    const res = await fetch(`${server.url}/v1/dev/faucet`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hello',
    });
    assert.equal(res.status, 415);
    assert.equal(((await res.json()) as { code: string }).code, 'invalid_params');
  });

  it('500 internal_error: the local chain does not answer', async () => {
    // The same local chain, reached through a port where nothing listens: a real refused connection.
    const dead = { ...chain.config, rpcUrl: await deadRpcUrl() };
    const broken: Chains = {
      evm: [],
      solana: [],
      local: {
        // The faucet (the dev package's) reaches anvil on its own connection: it is pointed at the dead port too.
        evm: { ...chain, clients: createEvmClients(dead), fund: evmFaucet(dead.rpcUrl, chain.testUsd) },
        solana: (await sharedChains()).local!.solana,
      },
      close: async () => {},
    };
    const brokenServer = await devServer(broken);
    try {
      const res = await postJson(`${brokenServer.url}/v1/dev/faucet`, {
        account: `eip155:31337:${freshAddress()}`,
        asset: 'native',
        amount: '1',
      });
      assert.equal(res.status, 500);
      assert.equal(res.body.code, 'internal_error');
      assert.doesNotMatch(String(res.body.message), /127\.0\.0\.1/);
    } finally {
      await brokenServer.close();
    }
  });
});
