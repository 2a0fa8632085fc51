/**
 * Holds the unit tier (test/tiers.ts) to its promise: a unit test runs in memory, so starting a child
 * process, listening on a socket or connecting to one fails it, naming the file and what it started.
 * Loaded as a setup file of the unit project only: its workers are the unit files' own (vitest never
 * gives one project's worker to another), so the wire and end-to-end tiers never see it.
 *
 * The call throws, and the test fails afterwards even when library code caught the throw and carried
 * on (a sandbox probe that failed reads as "no sandbox"): a unit test must not pass by another path.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { afterEach } from "vitest";

const require = createRequire(import.meta.url);
const INSTALLED = Symbol.for("goat.test.unitGuard");

/** What the unit files of this worker tried to start, since the last check. */
interface GuardState {
  violations: string[];
}

function install(): GuardState {
  const state: GuardState = { violations: [] };
  const refuse = (what: string): never => {
    state.violations.push(what);
    throw new Error(
      `unit tests run in memory, but this one started ${what}: ` +
        "move the file out of UNIT in test/tiers.ts (to the wire tier), or use scriptedModel() instead",
    );
  };
  const childProcess = require("node:child_process");
  for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
    childProcess[name] = (...args: unknown[]) => refuse(`a child process (${name} ${String(args[0])})`);
  }
  // The named imports of `node:child_process` in ES modules read the patched functions from now on.
  syncBuiltinESMExports();
  const net = require("node:net");
  net.Server.prototype.listen = () => refuse("a server (listen)");
  net.Socket.prototype.connect = () => refuse("a network connection (connect)");
  return state;
}

const holder = globalThis as { [INSTALLED]?: GuardState };
// Once per worker process: the files of a worker share it (isolate: false), and each loads this file.
holder[INSTALLED] ??= install();
const state = holder[INSTALLED];

afterEach(() => {
  const seen = state.violations.splice(0);
  if (seen.length > 0) throw new Error(`unit tests run in memory, but this test started ${seen.join(", ")}`);
});
