import assert from 'node:assert/strict';
import { ApiError } from '../../server/src/errors.js';
import type { Action } from '../../server/src/chains/adapter.js';
import { pairResults } from '../../server/src/checkout/results.js';

const evmSign: Action = {
  type: 'walletRpc',
  data: { chain_id: 'eip155:8453', method: 'eth_signTypedData_v4', params: ['0x0', '{}'] },
};
const evmSend: Action = {
  type: 'walletRpc',
  data: { chain_id: 'eip155:1', method: 'eth_sendTransaction', params: [{}] },
};
const solanaBuild: Action = {
  type: 'build',
  data: {
    data: `bld_${Buffer.from(JSON.stringify({ k: 'solana_transfer', c: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' })).toString('base64url')}.AAAA`,
  },
};
const solanaSign: Action = {
  type: 'walletRpc',
  data: { chain_id: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', method: 'solana_signTransaction', params: [{}] },
};

describe('gateway confirm: results of a mixed EVM and Solana option', () => {
  it('pairs results with actions in order, EVM actions before the Solana one, in both forms', () => {
    const legs = pairResults(
      [evmSign, evmSend, solanaBuild],
      ['0xsig', { type: 'walletRpc', data: ['0xhash'] }, { type: 'walletRpc', data: ['AQID', 'BAUG'] }],
    );
    assert.deepEqual(
      legs.map((l) => [l.namespace, l.actions.length, l.results]),
      [
        ['eip155', 2, [['0xsig'], ['0xhash']]],
        ['solana', 1, [['AQID', 'BAUG']]],
      ],
    );
  });

  it('keeps legs apart when namespaces alternate, and refuses a count that does not match', () => {
    const legs = pairResults([solanaSign, evmSign, solanaBuild], ['tx1', '0xsig', 'tx2']);
    assert.deepEqual(
      legs.map((l) => l.namespace),
      ['solana', 'eip155', 'solana'],
    );
    assert.throws(
      () => pairResults([evmSign, solanaBuild], ['0xsig']),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 'params_validation' &&
        /1 items but the option has 2 actions/.test(err.message),
    );
  });
});
