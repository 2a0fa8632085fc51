/**
 * Keeps WebAssembly on V8's baseline tier for the rest of the process.
 *
 * The Bash checks parse commands with a WebAssembly grammar. Loading it runs a function so large that
 * V8's dynamic tiering recompiles it with the optimising tier on a background thread (about 0.5 s of
 * CPU; raising `--wasm-tiering-budget` avoids it too, `--no-wasm-tier-up` alone does not), and
 * process exit waits for that job: about 2 s after any Bash call on a busy machine (measured: exit
 * 2.2 s → 0.13 s after stdin's end), long enough for an Agent SDK's SIGTERM. The baseline tier parses
 * a command line in microseconds. The program owns its process, so the flag is set by the program,
 * not by the library.
 *
 * Why not at the top of the program: any V8 flag changed at run time changes the flag hash that
 * Node's built-in modules' code cache is checked against, and every built-in loaded afterwards is
 * compiled from source (measured: loading http, net, child_process and nine others took 8 ms before
 * the change and 21 ms after). So the program sets it once the mode's modules (and the built-ins they
 * import) are loaded and before any agent can run a tool: the grammar is compiled on the first Bash
 * call, never earlier.
 */
import { setFlagsFromString } from "node:v8";

let set = false;

/** Sets `--liftoff-only` (once); call after the mode's imports, before the agent runs. */
export function keepWasmOnBaselineTier(): void {
  if (set) return;
  set = true;
  setFlagsFromString("--liftoff-only");
}
