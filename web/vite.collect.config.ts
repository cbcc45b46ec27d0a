import { standalonePage } from './vite.standalone.js';

/** The data-collection form (docs/decisions.md §16). */
export default standalonePage('collect');
