// A consumer's script, run with node against a real server by sdkWallet.packaging.test.ts (once as is, once with the
// `browser` condition, which selects @solana/kit's browser build): the runtime files resolve through the exports map
// and work, with the consumer's own copy of @solana/kit.
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
} from '@solana/kit';
import * as sdk from '@paygate/sdk-wallet';

// kit's browser build refuses Web Crypto outside a secure context (a page served over HTTPS); node has no such flag.
globalThis.isSecureContext ??= true;

const wallet = new sdk.PaygateWallet({
  baseUrl: process.env.PAYGATE_URL,
  appId: process.env.PAYGATE_APP_ID,
  clientId: 'packaged-smoke',
});
const paymentId = sdk.parsePaymentLink(process.env.PAYGATE_LINK);
const info = await wallet.getPayment(paymentId);
const status = await wallet.getPaymentStatus(paymentId, { maxPollMs: 0 });
const cancelled = await wallet.cancelPayment(paymentId);
const notFound = await wallet.getPayment('pay_7Qz3kP9xWm2LrT8vN4bY6cJd').catch((e) => e);
const badLink = (() => {
  try {
    return sdk.parsePaymentLink('https://pay.example.com/nope');
  } catch (e) {
    return e;
  }
})();

// solana_signTransaction with a kit signer: a System Program transfer, signed, never sent.
const buyer = await generateKeyPairSigner();
const merchant = await generateKeyPairSigner();
const data = new Uint8Array(12);
new DataView(data.buffer).setUint32(0, 2, true);
const transaction = getBase64EncodedWireTransaction(
  compileTransaction(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(buyer.address, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY', lastValidBlockHeight: 10n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstruction(
          {
            programAddress: address('11111111111111111111111111111111'),
            accounts: [
              { address: buyer.address, role: AccountRole.WRITABLE_SIGNER },
              { address: merchant.address, role: AccountRole.WRITABLE },
            ],
            data,
          },
          m,
        ),
    ),
  ),
);
const signed = await sdk.performWalletRpc(
  {
    chain_id: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    method: 'solana_signTransaction',
    params: [{ transaction }],
  },
  { solana: buyer },
);
const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(signed));
const verified = await verifySignature(
  buyer.keyPair.publicKey,
  decoded.signatures[buyer.address],
  decoded.messageBytes,
);

console.log(
  JSON.stringify({
    exports: Object.keys(sdk).sort(),
    info: [info.status, info.amount.value],
    status,
    cancelled,
    notFound: [notFound instanceof sdk.PaygateError, notFound.code, notFound.status],
    badLink: [badLink instanceof sdk.PayError, badLink.reason],
    signed: verified,
  }),
);
