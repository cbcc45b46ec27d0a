/** The local Solana chain's settlement owner (server/src/chains/solana/local/README.md), for the demo merchant. */
export const solanaDemoSettlement: [string, string] = [
  'solana:MfQzePv71xeCmNoR86q2ibum1QgT6UZj',
  '37xNMmypvdazAkTFfJcnYV3bMb2k26fC4kxJqrqj4bXH',
];
