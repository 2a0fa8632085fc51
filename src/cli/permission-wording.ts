/**
 * A denial in the `goat` command line tells the model (which tells the user) which flag would have
 * allowed the call, not the `query()` option a library host would set.
 */
import type { PermissionWording } from "../index.js";
import type { CliArgs } from "./args.js";

/** An argument as it would be typed in a POSIX shell: double quotes, with what they expand escaped. */
function shellWord(text: string): string {
  return `"${text.replace(/["$`\\]/g, "\\$&")}"`;
}

/** The flags' words, for a run whose user typed the command (not an Agent SDK host). */
export function cliPermissionWording(args: Pick<CliArgs, "print" | "permissionPrompts">): PermissionWording {
  return {
    nobodyAsked: args.print ? "goat -p does not ask" : "--permission-prompts none denies what would ask",
    allowRules: (rules) => `run goat with --allowedTools ${rules.map(shellWord).join(" ")}`,
    addDirectories: (directories) =>
      `run goat with ${directories.map((d) => `--add-dir ${shellWord(d)}`).join(" ")}`,
    useMode: (mode) => `run goat with --permission-mode ${mode}`,
    decideAtRunTime: args.print ? "use the interactive goat (no -p), which asks" : undefined,
  };
}
