/** Types of `extra-ca-certs.mjs`: `NODE_EXTRA_CA_CERTS`, moved aside for a test run's processes. */

/** Moves `NODE_EXTRA_CA_CERTS` out of this process's environment (and so its later children's). */
export declare function moveExtraCaCertsAside(): void;

/** The environment for a process that may reach the npm registry: the certificates back in place. */
export declare function registryEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
