/**
 * A model in memory, for tests of the loop's own behaviour: a `Provider` whose answers are scripted
 * with the mock provider's `reply` builders and streamed as neutral events, with no HTTP, SSE or JSON
 * parsing on the way. A test of the loop then runs in a few milliseconds and depends on no socket or
 * clock; the wire formats stay pinned by the end-to-end tests against `startMockProvider`.
 *
 * ```ts
 * const model = scriptedModel();
 * model.enqueue(reply.toolCalls([{ name: "echo", input: { text: "a" } }]), reply.text("done"));
 * query({ prompt: "x", options: { model: model.id, provider: model, tools: [echoTool] } });
 * ```
 *
 * A step can also be a `ProviderError` (the call fails, as a provider's typed error), a function of
 * the request (decides from what was sent), or a reply with `holdAfterEvents`: the stream stops there
 * until `release()` or until the call's signal aborts (then it fails as `aborted`, as the HTTP
 * providers do), so a test interrupts a stream at a known point instead of racing a slow one.
 */
import { ProviderError } from "../../src/llm/errors.js";
import { finalStop, toolUseBlock } from "../../src/llm/finish.js";
import type {
  AssistantMessage,
  ContentBlock,
  ModelRequest,
  Provider,
  StreamEvent,
  Usage,
} from "../../src/llm/types.js";
import type { MessageReply } from "../../src/testing/mock-replies.js";

/** A scripted reply that stops after some events until released (or aborted); made by `held()`. */
export interface HeldReply extends MessageReply {
  /** Stream this many events, then wait for `release()` or the call's abort. */
  holdAfterEvents: number;
  /** Resolves when the stream has reached the hold point. */
  held: Promise<void>;
  /** Lets the held stream go on. */
  release(): void;
  /** Called by the model when the stream reaches the hold point. */
  reachHold(): void;
  /** Resolves on `release()`. */
  released: Promise<void>;
}

/** One scripted model call. */
export type ScriptedStep =
  | MessageReply
  | ProviderError
  | ((request: ModelRequest) => ScriptedStep | Promise<ScriptedStep>);

/** A provider answering from a script, recording every request. */
export interface ScriptedModel extends Provider {
  /** The `provider/model` id to pass as `model`. */
  readonly id: string;
  /** Every request received, in order (the neutral request, not a wire body). */
  readonly requests: ModelRequest[];
  /** Adds steps to the end of the script; each call takes the first. */
  enqueue(...steps: ScriptedStep[]): void;
  /** Steps not taken yet. */
  pending(): number;
}

/** Creates a scripted model named `scripted` (`scripted/model` unless `model` says otherwise). */
export function scriptedModel(options: { name?: string; model?: string } = {}): ScriptedModel {
  const name = options.name ?? "scripted";
  const steps: ScriptedStep[] = [];
  const requests: ModelRequest[] = [];
  return {
    name,
    id: `${name}/${options.model ?? "model"}`,
    requests,
    enqueue: (...more) => {
      steps.push(...more);
    },
    pending: () => steps.length,
    async *stream(request) {
      requests.push(request);
      let step = steps.shift();
      if (step === undefined)
        throw new ProviderError({
          kind: "server",
          provider: name,
          message: "scripted model: the test made more model calls than it scripted",
        });
      while (typeof step === "function") step = await step(request);
      if (step instanceof ProviderError) throw step;
      yield* streamReply(step, request, name);
    },
  };
}

/** A reply that streams `holdAfterEvents` events, then waits for `release()` (or the abort). */
export function held(reply: MessageReply, holdAfterEvents = 2): HeldReply {
  let reachHold!: () => void;
  let release!: () => void;
  const heldAt = new Promise<void>((resolve) => {
    reachHold = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { ...reply, holdAfterEvents, held: heldAt, reachHold, release, released };
}

function isHeld(reply: MessageReply): reply is HeldReply {
  return "holdAfterEvents" in reply;
}

async function* streamReply(
  reply: MessageReply,
  request: ModelRequest,
  provider: string,
): AsyncGenerator<StreamEvent> {
  const events = eventsOf(reply, `${provider}/${request.model}`);
  for (let i = 0; i < events.length; i++) {
    if (isHeld(reply) && i === reply.holdAfterEvents) {
      reply.reachHold();
      await untilReleasedOrAborted(reply.released, request.signal, provider);
    }
    if (request.signal?.aborted) throw abortedError(provider);
    yield events[i];
  }
}

function untilReleasedOrAborted(
  released: Promise<void>,
  signal: AbortSignal | undefined,
  provider: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(provider));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    released.then(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

function abortedError(provider: string): ProviderError {
  return new ProviderError({ kind: "aborted", provider, message: "the request was aborted" });
}

/** The neutral events a provider yields for `reply`, in the order the HTTP providers yield them. */
function eventsOf(reply: MessageReply, model: string): StreamEvent[] {
  const size = reply.chunkSize ?? 8;
  const events: StreamEvent[] = [{ type: "message_start", id: reply.id ?? "msg_scripted", model }];
  const content: ContentBlock[] = [];
  reply.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "text_start", index });
      for (const delta of pieces(block.text, size)) events.push({ type: "text_delta", index, delta });
      events.push({ type: "text_end", index, text: block.text });
      content.push({ type: "text", text: block.text });
    } else if (block.type === "thinking") {
      events.push({ type: "thinking_start", index });
      for (const delta of pieces(block.thinking, size)) events.push({ type: "thinking_delta", index, delta });
      events.push({ type: "thinking_end", index, thinking: block.thinking, signature: block.signature });
      content.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    } else if (block.type === "redacted_thinking") {
      events.push({ type: "redacted_thinking", index, data: block.data });
      content.push({ type: "redacted_thinking", data: block.data });
    } else {
      const id = block.id ?? `toolu_scripted_${String(index).padStart(2, "0")}`;
      const raw = block.rawArguments ?? JSON.stringify(block.input ?? {});
      events.push({ type: "toolcall_start", index, id, name: block.name });
      for (const delta of pieces(raw, size)) events.push({ type: "toolcall_delta", index, id, delta });
      // The same parsing the HTTP providers apply: bad JSON becomes `parse_error`, never a throw.
      const toolCall = toolUseBlock(id, block.name, raw);
      events.push({ type: "toolcall_end", index, toolCall });
      content.push(toolCall);
    }
  });
  const usage = usageOf(reply);
  events.push({ type: "usage", usage });
  const reported =
    reply.stopReason ?? (reply.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  const { stop_reason, truncated } = finalStop(content, reported);
  const message: AssistantMessage = {
    role: "assistant",
    content,
    id: reply.id ?? "msg_scripted",
    model,
    stop_reason,
    stop_sequence: reply.stopSequence ?? null,
    usage,
  };
  if (truncated) message.truncated = true;
  events.push({ type: "message_end", message });
  return events;
}

function usageOf(reply: MessageReply): Usage {
  const u = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...reply.usage };
  return {
    input_tokens: u.input,
    output_tokens: u.output,
    cache_read_input_tokens: u.cacheRead,
    cache_creation_input_tokens: u.cacheWrite,
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
