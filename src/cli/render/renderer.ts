/**
 * Renders the SDK message stream in the terminal: the answer as it streams, thinking (collapsed or in
 * full, `thinking-view.ts`), each tool call as `● Name(input)` with its outcome below, retries and
 * errors, and after each turn a line with its tokens and cost. The status line (`status-line.ts`) is
 * kept in step: shown while waiting and while tools run, hidden while text streams. Answers and tool
 * outcomes are printed as blocks that render for a width, so a resize draws them again.
 */
import type { SDKAssistantMessage, SDKMessage, SDKResultMessage } from "../../index.js";
import type { Style } from "../style.js";
import { terminalSafe } from "../terminal/safe-text.js";
import type { Screen } from "../terminal/screen.js";
import { type AnswerPrinter, createAnswerPrinter } from "./answer-printer.js";
import { createModelWait, type ModelWait } from "./model-wait.js";
import type { StatusLine } from "./status-line.js";
import { compact } from "./status-line.js";
import { createStreamEventView, type StreamEvent, type StreamEventView } from "./stream-event-view.js";
import type { ThinkingView } from "./thinking-view.js";
import { createToolCallsView, type ToolCallsView } from "./tool-calls-view.js";
import { createTurnTokens, inputTokens, type TurnTokens } from "./turn-tokens.js";

/** Renders messages through `screen`. */
export interface Renderer {
  handle(message: SDKMessage): void;
  /** Makes sure the next output starts on a fresh line. */
  endLine(): void;
  /** Writes a line of the CLI's own (slash-command output, notices). */
  note(text: string): void;
  /** The user interrupted the turn: a denial that follows is the interruption, not a "no". */
  interrupted(): void;
  /** The model of the latest `system/init`. */
  readonly model: string | undefined;
  /** A new session started (`/clear`, `/resume`): its turns' costs count from zero. */
  sessionStarted(): void;
}

/** Every `system` message (init, retries, compactions, denials, notices). */
type SystemMessage = Extract<SDKMessage, { type: "system" }>;

/** The renderer's parts and its state across messages, shared by the handlers below. */
interface RenderContext {
  screen: Screen;
  style: Style;
  status: StatusLine;
  thinking: ThinkingView;
  wait: ModelWait;
  answer: AnswerPrinter;
  tokens: TurnTokens;
  tools: ToolCallsView;
  stream: StreamEventView;
  /** Prints a line of Goat's own, on a fresh line. */
  line(text: string): void;
  model: string | undefined;
  mcpWarned: boolean;
  confinementWarned: boolean;
  /** The user interrupted the turn. */
  cancelled: boolean;
  /** The session's total at the previous result: a turn's cost is the difference (zero per session). */
  previousCost: number;
}

/** Creates a renderer writing to `screen`; thinking goes through `thinking`. */
export function createRenderer(
  screen: Screen,
  style: Style,
  status: StatusLine,
  cwd: string,
  thinking: ThinkingView,
  silenceNoticeMs?: number,
): Renderer {
  // A silent model is shown as such, with how long it has said nothing.
  const wait = createModelWait(
    (seconds) => status.show(`Waiting for the model · no reply for ${seconds} s`),
    silenceNoticeMs,
  );
  const line = (text: string) => {
    screen.endLine();
    screen.print(`${text}\n`);
  };
  const answer = createAnswerPrinter(screen, style);
  const tokens = createTurnTokens(status);
  const ctx: RenderContext = {
    screen,
    style,
    status,
    thinking,
    wait,
    answer,
    tokens,
    tools: createToolCallsView(screen, style, status, cwd, answer, line),
    stream: createStreamEventView({ status, wait, thinking, answer, tokens }),
    line,
    model: undefined,
    mcpWarned: false,
    confinementWarned: false,
    cancelled: false,
    previousCost: 0,
  };

  return {
    get model() {
      return ctx.model;
    },
    endLine: () => screen.endLine(),
    note: (text) => line(text),
    interrupted() {
      ctx.cancelled = true;
      wait.done();
    },
    sessionStarted() {
      ctx.previousCost = 0;
    },
    handle(m) {
      if (m.type === "system") onSystem(ctx, m);
      else if (m.type === "stream_event") {
        if (m.parent_tool_use_id === null) ctx.stream.show(m.event as StreamEvent);
      } else if (m.type === "assistant") {
        if (m.parent_tool_use_id === null) onAssistant(ctx, m);
      } else if (m.type === "tool_progress") {
        if (m.parent_tool_use_id === null) ctx.tools.progress(m.tool_use_id, m.tool_name);
      } else if (m.type === "user") {
        if (m.parent_tool_use_id !== null || typeof m.message.content === "string") return;
        ctx.tools.results(m.message.content, ctx.cancelled);
        if (!ctx.cancelled) ctx.tools.showRunning();
        // The results go back to the model: its next answer is awaited.
        if (!ctx.cancelled && ctx.tools.running === 0) wait.waiting();
      } else if (m.type === "result") onResult(ctx, m);
    },
  };
}

/** The session's notices: its start (and what failed in it), retries, compactions, denials. */
function onSystem(ctx: RenderContext, m: SystemMessage): void {
  const { style, line } = ctx;
  if (m.subtype === "init") {
    ctx.model = m.model;
    ctx.wait.waiting();
    if (m.goat_confinement === "none" && !ctx.confinementWarned) {
      ctx.confinementWarned = true;
      line(style.yellow(`! No sandbox here: ${m.goat_confinement_problem ?? "unknown reason"}`));
    }
    // Said once per session, so a missing tool is not a mystery; /mcp has the details.
    const failed = m.mcp_servers.filter((s) => s.status === "failed").map((s) => terminalSafe(s.name));
    if (failed.length > 0 && !ctx.mcpWarned) {
      ctx.mcpWarned = true;
      line(
        style.yellow(
          `! MCP server${failed.length > 1 ? "s" : ""} ${failed.join(", ")} failed to start (/mcp for details)`,
        ),
      );
    }
  } else if (m.subtype === "informational") line(style.yellow(`! ${terminalSafe(m.content)}`));
  else if (m.subtype === "api_retry") {
    const why = retryReason(m.error_status, m.error);
    ctx.status.retry(terminalSafe(why), m.attempt, m.max_retries, m.retry_delay_ms);
    ctx.wait.waiting(m.retry_delay_ms);
    if (!ctx.screen.live) line(style.dim(retryLine({ ...m, error: terminalSafe(why) })));
  } else if (m.subtype === "compact_boundary") {
    // The one line a compaction gets, /compact or automatic.
    const { pre_tokens: before, post_tokens: after } = m.compact_metadata;
    line(
      style.dim(
        `(history compacted: ${compact(before)} tokens${after !== undefined ? ` → ${compact(after)}` : " before"})`,
      ),
    );
  } else if (m.subtype === "permission_denied") ctx.tools.denied(m.tool_use_id, m.message, ctx.cancelled);
}

/** The model's whole message: the blocks that did not stream, and its tool calls. */
function onAssistant(ctx: RenderContext, m: SDKAssistantMessage): void {
  const { thinking, stream, tools } = ctx;
  ctx.tokens.callEnded(m.message.usage);
  if (thinking.active) thinking.end();
  if (ctx.answer.stream.active) {
    ctx.answer.stream.end();
    ctx.answer.stream.flush();
  }
  for (const block of m.message.content) {
    // Blocks that were not streamed (a provider that sends them whole) are shown now.
    if (block.type === "thinking" && !stream.streamedThinking) thinking.whole(terminalSafe(block.thinking));
    if (block.type === "redacted_thinking" && !stream.streamedThinking) thinking.redacted();
    if (block.type === "text" && !stream.streamedText && block.text)
      ctx.answer.printWhole(terminalSafe(block.text));
    if (block.type === "tool_use") tools.called(block);
  }
  stream.messageEnded();
  ctx.screen.endLine();
  if (tools.running > 0) {
    tools.showRunning();
    ctx.wait.done();
  } else {
    ctx.status.show("Thinking…");
    ctx.wait.waiting();
  }
}

/** The turn's end: its error if any, then its tokens, cost and time. */
function onResult(ctx: RenderContext, m: SDKResultMessage): void {
  const { style, line } = ctx;
  ctx.wait.done();
  ctx.status.end();
  ctx.screen.endLine();
  ctx.tools.turnEnded();
  if (m.is_error) {
    if (m.exit_reason === "interrupted") line(`  ⎿ ${style.yellow("Interrupted by user")}`);
    else {
      const text = "errors" in m && m.errors.length > 0 ? m.errors.join("; ") : m.result || m.subtype;
      line(style.red(`error: ${terminalSafe(text)}`));
    }
  }
  const cost = m.total_cost_usd - ctx.previousCost;
  ctx.previousCost = m.total_cost_usd;
  const u = m.usage;
  line(
    style.dim(
      `  ${compact(inputTokens(u))} in · ${compact(u.output_tokens)} out · $${cost.toFixed(4)} · ${(m.duration_ms / 1000).toFixed(1)}s`,
    ),
  );
  ctx.tokens.reset();
  ctx.cancelled = false;
}

/** "retrying in 2 s (attempt 1/4): …", the same words in the interactive UI and in print mode. */
export function retryLine(m: {
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error: string;
}): string {
  const wait =
    m.retry_delay_ms >= 1000 ? `${Math.round(m.retry_delay_ms / 100) / 10} s` : `${m.retry_delay_ms} ms`;
  return `retrying in ${wait} (attempt ${m.attempt}/${m.max_retries}): ${m.error}`;
}

/** Why a call is retried, in a few words: "rate limited (429)", "server error (529): overloaded". */
function retryReason(status: number | null, error: string): string {
  const what =
    status === 429
      ? "rate limited"
      : status === 529 || /overload/i.test(error)
        ? "overloaded"
        : status !== null && status >= 500
          ? "server error"
          : status === null
            ? "connection failed"
            : "request failed";
  // The provider's wording after its "… API error 429 (rate_limit_error):" preamble, which repeats the status.
  const detail = error
    .replace(/^.*?API error \d+(?: \([^)]*\))?:\s*/i, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 60);
  return `${what}${status !== null ? ` (${status})` : ""}${detail ? `: ${detail}` : ""}`;
}
