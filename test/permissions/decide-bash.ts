/**
 * How the Bash analysis tests ask the real engine about one line: a canUseTool that records that it
 * was asked (and says no), so the answer is "allow" (ran without asking), "ask" or "deny" (a rule).
 */
import {
  type CanUseTool,
  createPermissionEngine,
  type PermissionEngineOptions,
  type PermissionMode,
} from "../../src/permissions/index.js";

/** The engine's verdict on `command` run in `cwd`. */
export async function decideBash(
  cwd: string,
  command: string,
  mode: PermissionMode = "default",
  options: Partial<PermissionEngineOptions> = {},
): Promise<"allow" | "ask" | "deny"> {
  let asked = false;
  const canUseTool: CanUseTool = async () => {
    asked = true;
    return { behavior: "deny", message: "no" };
  };
  const engine = createPermissionEngine({ cwd, mode, canUseTool, ...options });
  const d = await engine.decide({
    toolName: "Bash",
    input: { command },
    sideEffect: "mutating",
    toolUseID: "t",
    signal: new AbortController().signal,
  });
  return asked ? "ask" : d.behavior;
}
