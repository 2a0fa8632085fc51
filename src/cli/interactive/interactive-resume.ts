/**
 * Resuming in the interactive mode: the picker of `goat --resume` without an id, and the replay of a
 * resumed session's conversation, so the user sees where it left off.
 */

import { loadRich } from "../rich-loader.js";
import type { InteractiveUi } from "./interactive-ui.js";
import { REPLAYED, replayTranscript } from "./transcript-replay.js";

/** Asks which of the directory's sessions to resume; undefined for a new one. */
export async function pickSessionToResume(ui: InteractiveUi, cwd: string): Promise<string | undefined> {
  const { summarizeSessions, describeSession } = await import("../sessions/session-list.js");
  const sessions = await summarizeSessions(cwd, process.env, 30);
  const n =
    sessions.length > 0
      ? await ui.user.pick("Resume which session?", sessions.map(describeSession))
      : undefined;
  if (sessions.length === 0) ui.renderer.note("no earlier sessions in this directory: starting a new one");
  return n === undefined ? undefined : sessions[n].sessionId;
}

/** Shows the conversation of a resumed session (its last messages, kept for redraws). */
export async function replaySession(ui: InteractiveUi, cwd: string, sessionId: string): Promise<void> {
  const { screen, style } = ui;
  const [{ getSessionMessages }, rich] = await Promise.all([
    import("../../session/index.js"),
    loadRich().catch(() => undefined),
  ]);
  const messages = await getSessionMessages(sessionId).catch(() => []);
  // Kept for redraws: only the messages shown.
  const shown = messages.slice(-REPLAYED);
  screen.printBlock((columns) =>
    replayTranscript(
      shown,
      style,
      cwd,
      (text) => rich?.renderMarkdown(text, columns - 1, style.enabled) ?? `${text}\n`,
      messages.length - shown.length,
      columns,
    ),
  );
  ui.renderer.note(style.dim(`(resumed session ${sessionId})`));
}
