/**
 * `NODE_EXTRA_CA_CERTS`, moved aside for the processes of a test run.
 *
 * Node 20 reads the file that variable names when each process starts, whether or not the process
 * ever opens a TLS connection. Machines behind a TLS-inspecting proxy set it to the system's whole
 * bundle (Debian's ca-certificates.crt, about 140 certificates): measured, about 38 ms of CPU per
 * process (`node -e 0` 59 -> 21 ms, `goat -p` 137 -> 103 ms). A run starts some 500 Node processes
 * (goat alone and under the official SDK, MCP fixture servers, DBOS workers, scripts), and every one
 * of them talks to a local server over plain HTTP. So the global setup moves the variable aside
 * before the workers start, and they and all they start skip the parse; npm, which may reach the
 * registry through that proxy, gets it back through `registryEnv()`.
 */

const ASIDE = "GOAT_TEST_NODE_EXTRA_CA_CERTS";

/** Moves `NODE_EXTRA_CA_CERTS` out of this process's environment (and so its later children's). */
export function moveExtraCaCertsAside() {
  const certs = process.env.NODE_EXTRA_CA_CERTS;
  if (certs === undefined) return;
  process.env[ASIDE] = certs;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

/** The environment for a process that may reach the npm registry: the certificates back in place. */
export function registryEnv(env = process.env) {
  const certs = env[ASIDE];
  return certs === undefined ? env : { ...env, NODE_EXTRA_CA_CERTS: certs };
}
