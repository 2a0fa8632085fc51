/**
 * The KillShell tool (Claude Code 2.0's name and field): stops a background shell and every process
 * it started (its whole process group).
 */
import { getBackgroundShell, killBackgroundShell, listBackgroundShells } from "./background-shells.js";
import { defineTool } from "./define-tool.js";
import { jsonSchema } from "./tool-schema.js";

/** Input of the KillShell tool. */
export interface KillShellInput {
  shell_id: string;
}

const inputSchema = jsonSchema<KillShellInput>(
  {
    type: "object",
    properties: {
      shell_id: { type: "string", minLength: 1, description: "The ID of the background shell to kill" },
    },
    required: ["shell_id"],
  },
  { removeAdditional: true },
);

/** The KillShell tool. */
export const killShellTool = defineTool<KillShellInput, { shellId: string; killed: boolean }>({
  name: "KillShell",
  description: `Kills a running background shell by its ID, together with every process it started.
- Takes the shell_id the Bash call (run_in_background) returned.
- Use it to stop servers, watchers and other long-running commands that are no longer needed.`,
  inputSchema,
  sideEffect: "mutating",
  execute: async (input, ctx) => {
    const shell = getBackgroundShell(ctx.state, input.shell_id);
    if (!shell) {
      const known = listBackgroundShells(ctx.state).map((s) => s.id);
      const hint =
        known.length > 0 ? `Known shells: ${known.join(", ")}.` : "No background shells have been started.";
      return { content: `No background shell with id "${input.shell_id}". ${hint}`, isError: true };
    }
    if (shell.status !== "running") {
      // Its leader is gone but processes it started may still run: stop those too, quietly.
      await killBackgroundShell(shell);
      return {
        content: `Shell ${shell.id} is not running, so it cannot be killed (status: ${shell.status}${shell.exitCode !== null ? `, exit code ${shell.exitCode}` : ""}).`,
        isError: true,
        details: { shellId: shell.id, killed: false },
      };
    }
    await killBackgroundShell(shell);
    return {
      content: `Successfully killed shell: ${shell.id} (${shell.command})`,
      details: { shellId: shell.id, killed: true },
    };
  },
});
