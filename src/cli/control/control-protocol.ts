/**
 * Claude Code's stream-json control protocol, the wire half: classifying stdin lines (user message,
 * `control_request`, `control_response`, `control_cancel_request`, `keep_alive`) and a channel that
 * answers the host's requests and sends our own (`can_use_tool`, `hook_callback`), matching the
 * host's answers to them by `request_id`. What each subtype does lives in `control-handlers.ts`.
 */
import { randomUUID } from "node:crypto";
import type { SDKUserMessageInput } from "../../index.js";
import { GoatError } from "../../index.js";
import { parseInputLine } from "./stdin-messages.js";

/** The body of a control request: its subtype and the subtype's own fields. */
export interface ControlRequestBody {
  subtype: string;
  [field: string]: unknown;
}

/** `{"type":"control_request","request_id":…,"request":{"subtype":…}}`, in either direction. */
interface ControlRequestLine {
  type: "control_request";
  request_id: string;
  request: ControlRequestBody;
}

/** The answer to a control request, in either direction. */
interface ControlResponseLine {
  type: "control_response";
  response:
    | { subtype: "success"; request_id: string; response?: Record<string, unknown> }
    | { subtype: "error"; request_id: string; error: string; error_code?: string };
}

/**
 * An error answer with Claude Code's machine-readable `error_code` (e.g. `unsupported_request`), which
 * is also its `code` as a `GoatError`.
 */
export class ControlError extends GoatError {
  override name = "ControlError";
  constructor(
    message: string,
    readonly errorCode: string,
  ) {
    super(message, { code: errorCode });
  }
}

/** One stdin line, sorted by what it is. */
export type InputLine =
  | { kind: "user"; message: SDKUserMessageInput }
  | { kind: "control_request"; line: ControlRequestLine }
  | { kind: "control_response"; line: ControlResponseLine }
  | { kind: "cancel"; requestId: string }
  | { kind: "keep_alive" }
  | { kind: "invalid"; error: string };

/** Sorts one stdin line; anything malformed is `invalid` with a text saying what is wrong. */
export function classifyInputLine(line: string): InputLine {
  let json: any;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return { kind: "invalid", error: `not JSON (${(error as Error).message})` };
  }
  switch (json?.type) {
    case "user": {
      const parsed = parseInputLine(line);
      return "error" in parsed ? { kind: "invalid", error: parsed.error } : { kind: "user", message: parsed };
    }
    case "control_request":
      if (typeof json.request_id !== "string" || typeof json.request?.subtype !== "string") {
        return { kind: "invalid", error: 'a control_request needs "request_id" and "request":{"subtype":…}' };
      }
      return { kind: "control_request", line: json };
    case "control_response": {
      const r = json.response;
      if (typeof r?.request_id !== "string" || (r.subtype !== "success" && r.subtype !== "error")) {
        return {
          kind: "invalid",
          error: 'a control_response needs "response":{"subtype":"success"|"error","request_id":…}',
        };
      }
      return { kind: "control_response", line: json };
    }
    case "control_cancel_request":
      if (typeof json.request_id !== "string") {
        return { kind: "invalid", error: 'a control_cancel_request needs "request_id"' };
      }
      return { kind: "cancel", requestId: json.request_id };
    case "keep_alive":
      return { kind: "keep_alive" };
    default:
      return {
        kind: "invalid",
        error: `expected a user message or a control_request, got type ${JSON.stringify(json?.type)}`,
      };
  }
}

/** Answers one host request: the success payload, or a throw whose message becomes the error. */
export type ControlRequestHandler = (
  request: ControlRequestBody,
  signal: AbortSignal,
) => Promise<Record<string, unknown> | undefined>;

/** Both directions of the protocol over one output and the lines read from stdin. */
export interface ControlChannel {
  /** Sends a request to the host and resolves with its success payload; rejects on an error answer, abort or closed input. */
  request(body: ControlRequestBody, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Runs the handler for a host request and writes its answer. Never throws. */
  handleRequest(line: ControlRequestLine): Promise<void>;
  /** Settles our request that `line` answers (answers to unknown ids are reported, not fatal). */
  handleResponse(line: ControlResponseLine): void;
  /** The host withdrew one of its requests: its handler's signal aborts. */
  cancel(requestId: string): void;
  /** Stdin ended: no answer can come, so every waiting request rejects with `reason`. */
  closeInput(reason: string): void;
}

/** Creates a channel that writes lines with `write` and answers host requests with `handler`. */
export function createControlChannel(
  write: (line: object) => void,
  handler: ControlRequestHandler,
  warn: (text: string) => void,
): ControlChannel {
  const pending = new Map<
    string,
    { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  const running = new Map<string, AbortController>();
  let closedReason: string | undefined;

  return {
    request(body, signal) {
      if (closedReason !== undefined) return Promise.reject(new Error(closedReason));
      if (signal.aborted) return Promise.reject(new Error("aborted before the request was sent"));
      const requestId = randomUUID();
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          settle();
          // Tells the host to drop its question (a permission dialog, say) that no one waits for now.
          write({ type: "control_cancel_request", request_id: requestId });
          reject(new Error("aborted while waiting for the host's answer"));
        };
        const settle = () => {
          pending.delete(requestId);
          signal.removeEventListener("abort", onAbort);
        };
        pending.set(requestId, {
          resolve: (r) => {
            settle();
            resolve(r);
          },
          reject: (e) => {
            settle();
            reject(e);
          },
        });
        signal.addEventListener("abort", onAbort, { once: true });
        write({ type: "control_request", request_id: requestId, request: body } satisfies ControlRequestLine);
      });
    },
    async handleRequest(line) {
      const requestId = line.request_id;
      const abort = new AbortController();
      running.set(requestId, abort);
      let answer: ControlResponseLine["response"];
      try {
        const payload = await handler(line.request, abort.signal);
        answer = { subtype: "success", request_id: requestId, response: payload ?? {} };
      } catch (error) {
        answer = { subtype: "error", request_id: requestId, error: errorText(error) };
        if (error instanceof ControlError) answer.error_code = error.errorCode;
      } finally {
        running.delete(requestId);
      }
      write({ type: "control_response", response: answer } satisfies ControlResponseLine);
    },
    handleResponse(line) {
      const r = line.response;
      const waiter = pending.get(r.request_id);
      if (!waiter) {
        warn(`control_response for unknown request_id ${JSON.stringify(r.request_id)} ignored`);
        return;
      }
      if (r.subtype === "success") waiter.resolve(isRecord(r.response) ? r.response : {});
      else
        waiter.reject(new Error(typeof r.error === "string" ? r.error : "the host answered with an error"));
    },
    cancel(requestId) {
      running.get(requestId)?.abort();
    },
    closeInput(reason) {
      closedReason = reason;
      for (const waiter of [...pending.values()]) waiter.reject(new Error(reason));
      for (const abort of running.values()) abort.abort();
    },
  };
}

/** An error's message, or the value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
