/**
 * The error for a sandbox that was asked for and cannot start. The Bash call that needed it fails with
 * this message; the command is never run unsandboxed instead.
 */
import { GoatError } from "../errors.js";

/** The sandbox cannot start here: bubblewrap missing or refused, or a platform without a sandbox. */
export class SandboxUnavailableError extends GoatError {
  override name = "SandboxUnavailableError";
  constructor(problem: string) {
    super(
      `The sandbox could not start: ${problem}. The command was not run (with the sandbox on, Bash never runs a command unsandboxed instead).`,
      { code: "sandbox_unavailable" },
    );
  }
}
