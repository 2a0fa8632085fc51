/**
 * Tools the session runs outside the loop: the permission prompt tool (`permissionPromptToolName`),
 * and the `!` lines and `@` files of a `/command` prompt. Each gets the context and the gate the
 * loop would give a model's call.
 */
import { randomUUID } from "node:crypto";
import type { BeforeToolCallDecision, ToolCallInfo } from "../loop/loop-config.js";
import type { PermissionEngine } from "../permissions/engine.js";
import type { CanUseTool } from "../permissions/types.js";
import type { FileScope, Tool, ToolContext } from "../tools/types.js";
import { allowedToolsApprove, type CommandExpansionContext } from "./custom-commands.js";
import { permissionPromptToolCallback } from "./permission-prompt-tool.js";
import type { RuntimeCore } from "./runtime-core.js";

/** The context of a tool call made outside the loop. */
export type OutsideToolContext = (
  signal: AbortSignal,
  toolUseId: string,
  confinement?: ToolContext["confinement"],
) => ToolContext;

/** Builds the context a tool run outside the loop gets: the one the loop would give it. */
export function outsideToolContext(
  core: RuntimeCore,
  sessionId: () => string,
  fileScope: () => FileScope | undefined,
): OutsideToolContext {
  return (signal, toolUseId, confinement) => ({
    signal,
    cwd: core.cwd,
    sessionId: sessionId(),
    toolUseId,
    state: core.toolState,
    env: core.sessionEnv(),
    ...(confinement ? { confinement } : {}),
    fileScope,
    onUpdate: () => {},
  });
}

/**
 * With `permissionPromptToolName`, a tool of the session answers what `canUseTool` would (the options
 * check refuses both); undefined without it.
 */
export function promptToolCallback(
  name: string | undefined,
  tools: () => readonly Tool[],
  context: OutsideToolContext,
): CanUseTool | undefined {
  return name === undefined ? undefined : permissionPromptToolCallback(name, { tools, context });
}

/** What a `/command` prompt's `!` lines and `@` files go through: the model's own gate. */
export function commandExpansionContext(links: {
  core: RuntimeCore;
  permissions: PermissionEngine;
  tools: () => readonly Tool[];
  gate: (info: ToolCallInfo, preApproved?: string) => Promise<BeforeToolCallDecision>;
  context: OutsideToolContext;
}): CommandExpansionContext {
  const { core, permissions, gate } = links;
  const { cwd } = core;
  return {
    cwd,
    directories: () => permissions.directories,
    bashTool: () => links.tools().find((t) => t.name === "Bash"),
    gate: async (call, allowedTools) =>
      gate(
        call,
        (await allowedToolsApprove(allowedTools, call.input, cwd, call.signal))
          ? "the slash command's allowed-tools"
          : undefined,
      ),
    mayRead: async (path, signal) =>
      (
        await permissions.decide({
          toolName: "Read",
          input: { file_path: path },
          sideEffect: "read",
          toolUseID: `slash-command-${randomUUID()}`,
          signal,
        })
      ).behavior === "allow",
    toolContext: (toolUseId, signal, confinement) => links.context(signal, toolUseId, confinement),
    warn: core.report,
  };
}
