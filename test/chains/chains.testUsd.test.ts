/**
 * Paygate Test USD on the run's local chain: ERC-20, EIP-2612 permit and EIP-3009, driven with typed data that
 * viem signs for fresh test accounts, and submitted by the configured relayer as the gateway will.
 */
import assert from 'node:assert/strict';
import {
  BaseError,
  ContractFunctionRevertedError,
  domainSeparator,
  hexToBigInt,
  numberToHex,
  parseEventLogs,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TestUSD } from '@paygate/devchain';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import { sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';

const transferTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const receiveTypes = { ReceiveWithAuthorization: transferTypes.TransferWithAuthorization } as const;

const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

const cancelTypes = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The revert's custom error name, from viem's decoded error chain. */
function revertName(err: unknown): string | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined;
}

async function assertReverts(work: Promise<unknown>, errorName: string): Promise<void> {
  await assert.rejects(work, (err: unknown) => {
    assert.equal(revertName(err), errorName, String(err));
    return true;
  });
}

function vrs(signature: Hex): { v: number; r: Hex; s: Hex } {
  const { r, s, yParity } = parseSignature(signature);
  return { v: 27 + yParity, r, s };
}

describe('TestUSD (local chain)', function () {
  useChainSnapshots();

  let chain: LocalEvmChain;
  let payer: PrivateKeyAccount;
  let merchant: Address;
  let domain: { name: string; version: string; chainId: number; verifyingContract: Address };

  before(async () => {
    chain = await sharedLocalChain();
    domain = { name: 'Paygate Test USD', version: '1', chainId: 31337, verifyingContract: chain.testUsd };
  });

  beforeEach(async () => {
    payer = privateKeyToAccount(generatePrivateKey());
    merchant = privateKeyToAccount(generatePrivateKey()).address;
    await mint(payer.address, 100_000_000n);
  });

  async function mint(to: Address, value: bigint): Promise<void> {
    const hash = await chain.faucet.writeContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'mint',
      args: [to, value],
    });
    await chain.clients.public.waitForTransactionReceipt({ hash });
  }

  const balanceOf = (address: Address) =>
    chain.clients.public.readContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'balanceOf',
      args: [address],
    });

  async function latestTimestamp(): Promise<bigint> {
    return (await chain.clients.public.getBlock()).timestamp;
  }

  /** A transfer authorization valid for an hour, signed by `signer` (the payer unless a test says otherwise). */
  async function authorization(overrides: { signer?: PrivateKeyAccount; validBefore?: bigint; value?: bigint } = {}) {
    const message = {
      from: payer.address,
      to: merchant,
      value: overrides.value ?? 25_000_000n,
      validAfter: 0n,
      validBefore: overrides.validBefore ?? (await latestTimestamp()) + 3600n,
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    };
    const signature = await (overrides.signer ?? payer).signTypedData({
      domain,
      types: transferTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    return { message, ...vrs(signature) };
  }

  function transferArgs(a: Awaited<ReturnType<typeof authorization>>) {
    const { from, to, value, validAfter, validBefore, nonce } = a.message;
    return [from, to, value, validAfter, validBefore, nonce, a.v, a.r, a.s] as const;
  }

  function simulateTransfer(a: Awaited<ReturnType<typeof authorization>>) {
    return chain.clients.public.simulateContract({
      account: chain.clients.relayer.account,
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'transferWithAuthorization',
      args: transferArgs(a),
    });
  }

  it('describes itself: name, symbol, decimals, version and the EIP-712 domain viem computes', async () => {
    const read = <F extends 'name' | 'symbol' | 'decimals' | 'version' | 'DOMAIN_SEPARATOR' | 'minter'>(
      functionName: F,
    ) => chain.clients.public.readContract({ address: chain.testUsd, abi: TestUSD.abi, functionName });
    assert.equal(await read('name'), 'Paygate Test USD');
    assert.equal(await read('symbol'), 'TUSD');
    assert.equal(await read('decimals'), 6);
    assert.equal(await read('version'), '1');
    assert.equal(await read('minter'), chain.faucet.account.address);
    assert.equal(await read('DOMAIN_SEPARATOR'), domainSeparator({ domain }));
  });

  it('mints only for the deployer (the faucet)', async () => {
    await assertReverts(
      chain.clients.public.simulateContract({
        account: payer,
        address: chain.testUsd,
        abi: TestUSD.abi,
        functionName: 'mint',
        args: [payer.address, 1n],
      }),
      'NotMinter',
    );
  });

  it('transferWithAuthorization moves the funds, emits AuthorizationUsed and marks the nonce used', async () => {
    const auth = await authorization();
    const hash = await chain.clients.relayer.writeContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'transferWithAuthorization',
      args: transferArgs(auth),
    });
    const receipt = await chain.clients.public.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(await balanceOf(merchant), 25_000_000n);
    assert.equal(await balanceOf(payer.address), 75_000_000n);

    const [used] = parseEventLogs({ abi: TestUSD.abi, logs: receipt.logs, eventName: 'AuthorizationUsed' });
    assert.equal(used?.args.authorizer, payer.address);
    assert.equal(used?.args.nonce, auth.message.nonce);
    const [transfer] = parseEventLogs({ abi: TestUSD.abi, logs: receipt.logs, eventName: 'Transfer' });
    assert.deepEqual(transfer?.args, { from: payer.address, to: merchant, value: 25_000_000n });
    assert.equal(
      await chain.clients.public.readContract({
        address: chain.testUsd,
        abi: TestUSD.abi,
        functionName: 'authorizationState',
        args: [payer.address, auth.message.nonce],
      }),
      true,
    );
  });

  it('refuses a replayed authorization', async () => {
    const auth = await authorization();
    const hash = await chain.clients.relayer.writeContract((await simulateTransfer(auth)).request);
    await chain.clients.public.waitForTransactionReceipt({ hash });
    await assertReverts(simulateTransfer(auth), 'AuthorizationAlreadyUsed');
  });

  it('refuses an expired authorization (validBefore passed)', async () => {
    await assertReverts(
      simulateTransfer(await authorization({ validBefore: await latestTimestamp() })),
      'AuthorizationExpired',
    );
  });

  it('refuses an authorization that is not valid yet (validAfter in the future)', async () => {
    const base = await authorization();
    const message = { ...base.message, validAfter: (await latestTimestamp()) + 600n };
    const signature = await payer.signTypedData({
      domain,
      types: transferTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    await assertReverts(simulateTransfer({ message, ...vrs(signature) }), 'AuthorizationNotYetValid');
  });

  it('refuses an authorization signed by someone other than `from`', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    await assertReverts(simulateTransfer(await authorization({ signer: stranger })), 'InvalidSignature');
  });

  it('refuses a signature altered after signing (another value than the one signed)', async () => {
    const auth = await authorization();
    await assertReverts(
      simulateTransfer({ ...auth, message: { ...auth.message, value: 99_000_000n } }),
      'InvalidSignature',
    );
  });

  it('refuses the malleated twin of a valid signature (high s)', async () => {
    const auth = await authorization();
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const twin = { ...auth, s: numberToHex(n - hexToBigInt(auth.s), { size: 32 }), v: auth.v === 27 ? 28 : 27 };
    await assertReverts(simulateTransfer(twin), 'InvalidSignature');
  });

  it('refuses a transfer above the balance, whatever the signature', async () => {
    await assertReverts(simulateTransfer(await authorization({ value: 100_000_001n })), 'InsufficientBalance');
  });

  it('receiveWithAuthorization accepts only the payee as caller', async () => {
    const payee = privateKeyToAccount(generatePrivateKey());
    const message = {
      from: payer.address,
      to: payee.address,
      value: 1_000_000n,
      validAfter: 0n,
      validBefore: (await latestTimestamp()) + 3600n,
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    };
    const sig = vrs(
      await payer.signTypedData({ domain, types: receiveTypes, primaryType: 'ReceiveWithAuthorization', message }),
    );
    const args = [
      message.from,
      message.to,
      message.value,
      message.validAfter,
      message.validBefore,
      message.nonce,
      sig.v,
      sig.r,
      sig.s,
    ] as const;
    const call = { address: chain.testUsd, abi: TestUSD.abi, functionName: 'receiveWithAuthorization', args } as const;
    await assertReverts(
      chain.clients.public.simulateContract({ ...call, account: chain.clients.relayer.account }),
      'CallerMustBePayee',
    );
    await chain.clients.public.simulateContract({ ...call, account: payee });
  });

  it('cancelAuthorization voids an unused authorization', async () => {
    const auth = await authorization();
    const cancel = vrs(
      await payer.signTypedData({
        domain,
        types: cancelTypes,
        primaryType: 'CancelAuthorization',
        message: { authorizer: payer.address, nonce: auth.message.nonce },
      }),
    );
    const hash = await chain.clients.relayer.writeContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'cancelAuthorization',
      args: [payer.address, auth.message.nonce, cancel.v, cancel.r, cancel.s],
    });
    const receipt = await chain.clients.public.waitForTransactionReceipt({ hash });
    const [canceled] = parseEventLogs({ abi: TestUSD.abi, logs: receipt.logs, eventName: 'AuthorizationCanceled' });
    assert.equal(canceled?.args.nonce, auth.message.nonce);
    await assertReverts(simulateTransfer(auth), 'AuthorizationAlreadyUsed');
  });

  it('permit sets an allowance from an EIP-2612 signature, once', async () => {
    const spender = chain.clients.relayer.account.address;
    const message = {
      owner: payer.address,
      spender,
      value: 5_000_000n,
      nonce: 0n,
      deadline: (await latestTimestamp()) + 3600n,
    };
    const sig = vrs(await payer.signTypedData({ domain, types: permitTypes, primaryType: 'Permit', message }));
    const args = [message.owner, message.spender, message.value, message.deadline, sig.v, sig.r, sig.s] as const;
    const hash = await chain.clients.relayer.writeContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'permit',
      args,
    });
    await chain.clients.public.waitForTransactionReceipt({ hash });
    const read = (functionName: 'allowance' | 'nonces') =>
      functionName === 'allowance'
        ? chain.clients.public.readContract({
            address: chain.testUsd,
            abi: TestUSD.abi,
            functionName,
            args: [payer.address, spender],
          })
        : chain.clients.public.readContract({
            address: chain.testUsd,
            abi: TestUSD.abi,
            functionName,
            args: [payer.address],
          });
    assert.equal(await read('allowance'), 5_000_000n);
    assert.equal(await read('nonces'), 1n);

    // The nonce moved on, so the same signature no longer recovers to the owner.
    await assertReverts(
      chain.clients.public.simulateContract({
        account: spender,
        address: chain.testUsd,
        abi: TestUSD.abi,
        functionName: 'permit',
        args,
      }),
      'InvalidSignature',
    );
    const move = await chain.clients.relayer.writeContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'transferFrom',
      args: [payer.address, merchant, 5_000_000n],
    });
    await chain.clients.public.waitForTransactionReceipt({ hash: move });
    assert.equal(await balanceOf(merchant), 5_000_000n);
  });

  it('refuses an expired permit', async () => {
    const message = {
      owner: payer.address,
      spender: merchant,
      value: 1n,
      nonce: 0n,
      deadline: (await latestTimestamp()) - 1n,
    };
    const sig = vrs(await payer.signTypedData({ domain, types: permitTypes, primaryType: 'Permit', message }));
    await assertReverts(
      chain.clients.public.simulateContract({
        account: merchant,
        address: chain.testUsd,
        abi: TestUSD.abi,
        functionName: 'permit',
        args: [message.owner, message.spender, message.value, message.deadline, sig.v, sig.r, sig.s],
      }),
      'PermitExpired',
    );
  });

  it("starts every test from the snapshot: only this test's mint exists", async () => {
    const supply = await chain.clients.public.readContract({
      address: chain.testUsd,
      abi: TestUSD.abi,
      functionName: 'totalSupply',
    });
    assert.equal(supply, 100_000_000n);
  });
});
