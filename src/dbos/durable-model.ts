/**
 * Model calls as durable steps. Each provider of the session is wrapped so that one `stream()` call
 * (one attempt: the loop's retry layer sits above and each retry is a step of its own) runs inside
 * `DBOS.runStep`: live, its events flow to the loop as they arrive; the step's checkpoint is the
 * final message, or the error with what had already been shown. Replayed after a crash, the step
 * returns that checkpoint without calling the provider, and the wrapper rebuilds the few events the
 * loop and the retry layer read (the final message; for an error, whether content had been shown,
 * which decides whether the retry layer retries), so the replay takes the same path as the original.
 */
import { isProviderError, ProviderError, type ProviderErrorKind } from "../llm/errors.js";
import { createProviderRegistry, type ProviderSpec } from "../llm/resolve.js";
import type { ApiKeyResolver, AssistantMessage, ModelRequest, Provider, StreamEvent } from "../llm/types.js";
import { createAsyncQueue } from "../sdk/async-queue.js";
import type { EngineGuard } from "./engine-guard.js";

/** What a model step records. */
type ModelCheckpoint =
  | { ok: true; message: AssistantMessage }
  | {
      ok: false;
      error: {
        kind: ProviderErrorKind | "unknown";
        provider: string;
        message: string;
        status?: number;
        retryAfterMs?: number;
        afterFirstDelta?: boolean;
      };
      /** Text the loop had already received (it keeps it as a partial answer). */
      partialText: string;
      /** Whether any content event had reached the caller (the retry layer retries only when not). */
      delivered: boolean;
    };

/**
 * The providers a durable session uses: every provider the session's own registry would know (the
 * built-ins and `specs`), each wrapped so its calls are steps. Pass them as the `provider` option.
 * They are the caller's instances to the runtime, which never closes those: `close()` releases their
 * connections (keep-alive sockets) once the session is over, as a worker runs session after session.
 */
export function durableProviders(
  specs: readonly ProviderSpec[],
  guard: EngineGuard,
  getApiKey?: ApiKeyResolver,
): { providers: Provider[]; close(): void } {
  const registry = createProviderRegistry(
    getApiKey ? specs.map((s) => ("stream" in s ? s : { getApiKey, ...s })) : specs,
  );
  return {
    providers: registry
      .names()
      .map((name) => durableProvider(name, () => registry.get(name) as Provider, guard)),
    close: () => registry.close(),
  };
}

/** One provider whose `stream()` is a step. */
function durableProvider(name: string, inner: () => Provider, guard: EngineGuard): Provider {
  return {
    name,
    stream: (request) => durableStream(name, inner, request, guard),
  };
}

async function* durableStream(
  name: string,
  inner: () => Provider,
  request: ModelRequest,
  guard: EngineGuard,
): AsyncGenerator<StreamEvent> {
  const events = createAsyncQueue<StreamEvent>();
  let live = false;
  const step = guard.step(async (): Promise<ModelCheckpoint> => {
    live = true;
    let partialText = "";
    let delivered = false;
    let final: AssistantMessage | undefined;
    try {
      for await (const event of inner().stream(request)) {
        if (event.type !== "message_start" && event.type !== "usage") delivered = true;
        if (event.type === "text_delta") partialText += event.delta;
        else if (event.type === "message_end") final = event.message;
        events.push(event);
      }
      if (final === undefined)
        throw new ProviderError({
          kind: "stream",
          provider: name,
          message: "The stream ended without a final message.",
        });
      return { ok: true, message: final };
    } catch (error) {
      return { ok: false, error: errorRecord(name, error), partialText, delivered };
    }
  }, `model:${name}`);
  step.then(
    () => events.close(),
    () => events.close(),
  );
  for (;;) {
    const event = await events.next();
    if (event === undefined) break;
    yield event;
  }
  const outcome = await step;
  if (!live) yield* replayEvents(outcome);
  if (!outcome.ok) throw revive(outcome.error);
}

/** The events a replayed step shows the loop: what it and the retry layer read, nothing more. */
function* replayEvents(outcome: ModelCheckpoint): Generator<StreamEvent> {
  if (outcome.ok) {
    yield { type: "message_end", message: outcome.message };
    return;
  }
  if (!outcome.delivered) return;
  yield { type: "text_start", index: 0 };
  if (outcome.partialText !== "") yield { type: "text_delta", index: 0, delta: outcome.partialText };
}

function errorRecord(provider: string, error: unknown): Extract<ModelCheckpoint, { ok: false }>["error"] {
  if (isProviderError(error)) {
    return {
      kind: error.kind,
      provider: error.provider,
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
      afterFirstDelta: error.afterFirstDelta,
    };
  }
  return { kind: "unknown", provider, message: error instanceof Error ? error.message : String(error) };
}

function revive(error: Extract<ModelCheckpoint, { ok: false }>["error"]): Error {
  if (error.kind === "unknown") return new Error(error.message);
  return new ProviderError({ ...error, kind: error.kind });
}
