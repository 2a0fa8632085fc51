/**
 * A model in memory for tests: a `Provider` that answers each call with the next step of a script,
 * written with the same `reply` builders as the HTTP mock provider, and streamed as the neutral
 * events a real provider yields. No HTTP, no SSE, no JSON parsing, no clock: a test of an agent's
 * behaviour (its tools, hooks, permissions, stop conditions) then runs in milliseconds and depends on
 * no socket. Give it to `query()` or `Agent` as `provider`, and its `id` as `model`:
 *
 * ```ts
 * import { query } from "goat-agent";
 * import { reply, scriptedModel } from "goat-agent/testing";
 *
 * const model = scriptedModel();
 * model.enqueue(reply.toolCalls([{ name: "echo", input: { text: "a" } }]), reply.text("done"));
 * for await (const message of query({ prompt: "x", options: { model: model.id, provider: model, tools: [echo] } })) …
 * expect(model.requests[1].messages).toContainEqual(…); // what the agent sent back after the tool ran
 * ```
 *
 * A step can also be an error (`reply.error(429)`, or a `ProviderError` as thrown by the real
 * providers), a function of the request (to decide from what was sent), or a reply made by `held()`,
 * whose stream stops at a known event until the test lets it go or aborts, so a test interrupts a
 * stream at a point it chose instead of racing a slow one.
 *
 * What it does not test is the wire: the request bodies, the SSE decoding and the HTTP errors of each
 * provider's format. For those, `startMockProvider` answers the same replies over HTTP.
 */
import { kindForStatus, ProviderError } from "../llm/errors.js";
import { pushMessageEnd, toolUseBlock } from "../llm/finish.js";
import type { ContentBlock, ModelRequest, Provider, StreamEvent, Usage } from "../llm/types.js";
import type { ErrorReply, MessageReply } from "./mock-replies.js";

/** A scripted reply that streams some events, then waits until released or aborted (see `held`). */
export interface HeldReply extends MessageReply {
  /** Stream this many events, then wait for `release()` or the call's abort. */
  readonly holdAfterEvents: number;
  /** Resolves when the stream has reached the hold point. */
  readonly held: Promise<void>;
  /** Lets the held stream go on. */
  release(): void;
}

/**
 * One scripted model call: an answer (`reply.text`, `reply.toolCalls`, `reply.message`, `held(…)`),
 * an error (`reply.error(status)` becomes the `ProviderError` an HTTP provider would throw for that
 * status; a `ProviderError` is thrown as is), or a function deciding from the request.
 */
export type ScriptedStep =
  | MessageReply
  | ErrorReply
  | ProviderError
  | ((request: ModelRequest) => ScriptedStep | Promise<ScriptedStep>);

/** Options of `scriptedModel()`. */
export interface ScriptedModelOptions {
  /** The provider's name, the part of `id` before the slash. Default `scripted`. */
  name?: string;
  /** The model's name, the part of `id` after the slash. Default `model`. */
  model?: string;
}

/** A provider answering from a script and recording every request (see `scriptedModel`). */
export interface ScriptedModel extends Provider {
  /** The `provider/model` id to pass as `model` (`scripted/model` by default). */
  readonly id: string;
  /** Every request received, in order: the neutral request the loop built, not a wire body. */
  readonly requests: ModelRequest[];
  /** Adds steps to the end of the script; each model call takes the first. */
  enqueue(...steps: ScriptedStep[]): void;
  /** Steps not taken yet: assert 0 after a test to catch an agent that stopped early. */
  pending(): number;
}

/**
 * Creates a model that answers from a script, in memory. A call made when the script is empty fails
 * with a `server` `ProviderError` saying so (retried like one, so set `retry` low in tests that expect
 * it). Of a reply's delivery options only `chunkSize` applies: `delayMs`, `dropAfterEvents`,
 * `malformedAfterEvents` and `streamError` describe the wire and are for `startMockProvider`.
 */
export function scriptedModel(options: ScriptedModelOptions = {}): ScriptedModel {
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
      if (step.kind === "error") throw errorOf(step, name);
      yield* streamReply(step, request, name);
    },
  };
}

/**
 * A reply whose stream stops after `holdAfterEvents` events (the first is `message_start`) until
 * `release()` is called, or fails as `aborted` when the call's signal aborts, as the HTTP providers
 * do. `await step.held` to act while the model is mid-answer.
 */
export function held(reply: MessageReply, holdAfterEvents = 2): HeldReply {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reachHold!: () => void;
  const heldAt = new Promise<void>((resolve) => {
    reachHold = resolve;
  });
  const heldReply: HeldReply = { ...reply, holdAfterEvents, held: heldAt, release };
  holds.set(heldReply, { reachHold, released });
  return heldReply;
}

/** The model's side of each held reply: kept out of the public shape. */
const holds = new WeakMap<MessageReply, { reachHold: () => void; released: Promise<void> }>();

async function* streamReply(
  reply: MessageReply,
  request: ModelRequest,
  provider: string,
): AsyncGenerator<StreamEvent> {
  const events = eventsOf(reply, `${provider}/${request.model}`);
  const hold = holds.get(reply);
  for (let i = 0; i < events.length; i++) {
    if (hold && i === (reply as HeldReply).holdAfterEvents) {
      hold.reachHold();
      await untilReleasedOrAborted(hold.released, request.signal, provider);
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

/** The typed error an HTTP provider throws for this status (retry-after in seconds, as on the wire). */
function errorOf(reply: ErrorReply, provider: string): ProviderError {
  const message = reply.message ?? `scripted error ${reply.status}`;
  const retryAfter = reply.headers?.["retry-after"];
  return new ProviderError({
    kind: reply.type === "overloaded_error" ? "overloaded" : kindForStatus(reply.status, message),
    provider,
    message,
    status: reply.status,
    retryAfterMs: retryAfter === undefined ? undefined : Number(retryAfter) * 1000,
  });
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
  const reported =
    reply.stopReason ?? (reply.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
  // The same end as the HTTP providers': the stop reason decided from the content, usage, message_end.
  const parts = { content, id: reply.id ?? "msg_scripted", model, usage: usageOf(reply) };
  pushMessageEnd(events, parts, reported, { stop_sequence: reply.stopSequence ?? null });
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
