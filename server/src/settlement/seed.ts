/**
 * The deposit seed's mnemonic lives in crypto/depositSeed.ts, beside the other secrets' code, so that config.ts can
 * validate PAYGATE_DEPOSIT_SEED without importing settlement/ (which imports config.ts back). Settlement keeps its
 * name for it here.
 */
export { isValidMnemonic, newMnemonic, normaliseMnemonic, seedOf } from '../crypto/depositSeed.js';
