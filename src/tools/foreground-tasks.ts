/**
 * Tool calls running in the foreground that the host can move to the background while they run
 * (Claude Code's `backgroundTasks`, Ctrl+B): today Bash commands. Each registers a function that
 * moves it and returns the background shell's id; the call then answers at once and the command runs on.
 */
import type { ToolSessionState } from "./types.js";

/** Registers the running call `toolUseId`; returns the function that unregisters it. */
export function registerForegroundTask(
  state: ToolSessionState,
  toolUseId: string,
  moveToBackground: () => string | undefined,
): () => void {
  state.foregroundTasks ??= new Map();
  state.foregroundTasks.set(toolUseId, moveToBackground);
  return () => {
    if (state.foregroundTasks?.get(toolUseId) === moveToBackground) state.foregroundTasks.delete(toolUseId);
  };
}

/**
 * Moves the running call `toolUseId` (every one, without it) to the background. Returns what moved:
 * each call's tool_use id and its background shell's id.
 */
export function moveForegroundTasks(
  state: ToolSessionState,
  toolUseId?: string,
): Array<{ toolUseId: string; shellId: string }> {
  const tasks = state.foregroundTasks;
  if (!tasks) return [];
  const chosen = toolUseId === undefined ? [...tasks.keys()] : tasks.has(toolUseId) ? [toolUseId] : [];
  const moved: Array<{ toolUseId: string; shellId: string }> = [];
  for (const id of chosen) {
    const shellId = tasks.get(id)?.();
    tasks.delete(id);
    if (shellId !== undefined) moved.push({ toolUseId: id, shellId });
  }
  return moved;
}
