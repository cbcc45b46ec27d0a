import { standalonePage } from './vite.standalone.js';

/** A refund's claim page (docs/decisions.md §22.6). */
export default standalonePage('refund');
