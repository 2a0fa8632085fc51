/** Types of `pinned-install.mjs`. */

/** Installs `dir`'s pinned dependencies unless they are there; `npmFlags` are added to `npm install`. */
export declare function ensurePinnedInstall(dir: string, npmFlags?: string[]): Promise<void>;
