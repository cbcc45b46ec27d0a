import { standalonePage } from './vite.standalone.js';

/** A payment link's page (docs/decisions.md §30.6). */
export default standalonePage('link');
