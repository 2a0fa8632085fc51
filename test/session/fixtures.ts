/**
 * Test helpers for sessions: temp homes and small conversations recorded through the real recorder.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transformSync } from "esbuild";
import type { AssistantMessage, UserMessage } from "../../src/llm/types.js";
import { createSessionRecorder, type SessionRecorder } from "../../src/session/recorder.js";
import type { SessionStore } from "../../src/session/types.js";

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix = "goat-session-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A user prompt. */
export function prompt(text: string): UserMessage {
  return { role: "user", content: text };
}

/** An assistant text reply. */
export function reply(text: string): AssistantMessage {
  return { role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" };
}

/** An assistant message calling one tool. */
export function callTool(id: string, name = "Bash"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "tool_use", id, name, input: { command: "sleep 100" } }],
    stop_reason: "tool_use",
  };
}

/** A user message answering a tool call. */
export function toolResult(id: string, text: string): UserMessage {
  return { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] };
}

/** Starts a session with its header and returns the recorder. */
export async function startSession(
  store: SessionStore,
  sessionId: string,
  cwd: string,
  model = "anthropic/claude-test",
): Promise<SessionRecorder> {
  const recorder = createSessionRecorder({ store, sessionId });
  await recorder.record({
    type: "header",
    cwd,
    model,
    version: "0.1.0",
    createdAt: new Date().toISOString(),
  });
  return recorder;
}

/** Records a prompt and a reply per text; returns the recorder for chaining. */
export async function exchange(recorder: SessionRecorder, ...texts: string[]): Promise<SessionRecorder> {
  for (const text of texts) {
    await recorder.record({ type: "user", message: prompt(text) });
    await recorder.record({ type: "assistant", message: reply(`answer to ${text}`) });
  }
  return recorder;
}

/**
 * Compiles src/session (and src/errors.ts) to plain JS in `dir` so a child `node` process can run the
 * real store. With esbuild, which the build already uses: loading TypeScript's compiler for this cost
 * each test worker that imported these fixtures about 0.7 s of CPU.
 */
export function compileSessionModule(dir: string): void {
  const src = join(import.meta.dirname, "../../src");
  mkdirSync(join(dir, "session"), { recursive: true });
  // The session module and the error classes it throws (src/errors.ts).
  const files = [
    "errors.ts",
    ...readdirSync(join(src, "session"))
      .filter((n) => n.endsWith(".ts"))
      .map((n) => join("session", n)),
  ];
  for (const name of files) {
    const out = transformSync(readFileSync(join(src, name), "utf8"), {
      loader: "ts",
      format: "esm",
      target: "node20",
    });
    writeFileSync(join(dir, name.replace(/\.ts$/, ".js")), out.code);
  }
  writeFileSync(join(dir, "package.json"), '{"type":"module"}');
}
