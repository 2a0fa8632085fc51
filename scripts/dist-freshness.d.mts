/** Types of `dist-freshness.mjs`: whether `dist/` is older than the sources. */

/** True when `dist/bin/goat.js` is missing or older than a file under `src/`. */
export declare function distIsStale(): boolean;
