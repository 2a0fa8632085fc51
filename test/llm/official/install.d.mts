/** Types of `install.mjs`: the official provider clients of test/llm/official/, installed on demand. */

/** Installs the clients unless the pinned versions are there (waiting for another installer). */
export declare function ensureOfficialClientsInstalled(): Promise<void>;

/** Loads an installed client by package name (typed loosely: the root type check runs before install). */
export declare function loadOfficialClient(name: string): Promise<any>;
