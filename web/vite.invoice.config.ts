import { standalonePage } from './vite.standalone.js';

/** An invoice's public, printable page at /i/{invoiceId} (docs/decisions.md §30.11). */
export default standalonePage('invoice');
