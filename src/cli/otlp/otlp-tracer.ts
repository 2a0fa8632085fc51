/**
 * A small OpenTelemetry tracer of our own for the `goat` program: it records the spans Goat's GenAI
 * instrumentation makes (`telemetry/genai-spans.ts`) and posts them to an OTLP/HTTP endpoint as JSON,
 * in batches, with a final flush before the program exits. The library itself exports nothing: a
 * program using it registers its own OpenTelemetry SDK. The CLI has no such program around it, so it
 * carries this instead of the OpenTelemetry SDK and its exporter packages (tens of files to load for
 * a few spans per turn).
 */
import { randomBytes } from "node:crypto";
import type { Context, Span, SpanContext, SpanOptions, Tracer } from "@opentelemetry/api";

/** Where and how spans are sent. */
export interface OtlpTarget {
  url: string;
  headers: Record<string, string>;
  resource: Record<string, string>;
  scope: { name: string; version: string };
}

/** The tracer, and the flush to await before exiting. */
export interface OtlpTracer {
  tracer: Tracer;
  /** Sends what is recorded; resolves within `timeoutMs` whatever the endpoint does. */
  flush(timeoutMs?: number): Promise<void>;
}

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } };

interface KeyValue {
  key: string;
  value: AnyValue;
}

/** A finished span in OTLP/JSON's shape. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValue[];
  events: Array<{ timeUnixNano: string; name: string; attributes: KeyValue[] }>;
  status: { code: number; message?: string };
}

/** Spans sent in one request at most; more wait for the next. */
const BATCH = 256;
/** How long spans wait before a batch is sent while the program runs. */
const BATCH_DELAY_MS = 2_000;

/**
 * Creates the tracer. `getParent` reads the span a context holds (`trace.getSpanContext` of
 * `@opentelemetry/api`); `onError` hears a failed export once.
 */
export function createOtlpTracer(
  target: OtlpTarget,
  getParent: (context: Context | undefined) => SpanContext | undefined,
  onError: (message: string) => void,
): OtlpTracer {
  const done: OtlpSpan[] = [];
  const sending = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let warned = false;

  const send = (spans: OtlpSpan[]): Promise<void> => {
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: toKeyValues(target.resource) },
          scopeSpans: [{ scope: target.scope, spans }],
        },
      ],
    });
    const request = fetch(target.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...target.headers },
      body,
    })
      .then(async (response) => {
        await response.arrayBuffer().catch(() => undefined);
        if (!response.ok) throw new Error(`the collector answered ${response.status}`);
      })
      .catch((error: Error) => {
        if (warned) return;
        warned = true;
        onError(`could not export traces to ${target.url}: ${error.message}`);
      })
      .finally(() => sending.delete(request));
    sending.add(request);
    return request;
  };
  const drain = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (done.length > 0) void send(done.splice(0, BATCH));
  };
  const finished = (span: OtlpSpan) => {
    done.push(span);
    if (done.length >= BATCH) drain();
    else if (!timer) {
      timer = setTimeout(drain, BATCH_DELAY_MS);
      timer.unref();
    }
  };

  const startSpan = (name: string, options: SpanOptions = {}, context?: Context): Span => {
    const parent = options.root ? undefined : getParent(context);
    const own: SpanContext = {
      traceId: parent?.traceId ?? randomBytes(16).toString("hex"),
      spanId: randomBytes(8).toString("hex"),
      traceFlags: 1,
    };
    const record: OtlpSpan = {
      traceId: own.traceId,
      spanId: own.spanId,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      // OTLP numbers span kinds from 1 (internal); the API from 0.
      kind: (options.kind ?? 0) + 1,
      startTimeUnixNano: nanos(options.startTime),
      endTimeUnixNano: "0",
      attributes: toKeyValues(options.attributes ?? {}),
      events: [],
      status: { code: 0 },
    };
    let ended = false;
    const span: Span = {
      spanContext: () => own,
      setAttribute(key, value) {
        if (!ended && value !== undefined) setValue(record.attributes, key, value);
        return span;
      },
      setAttributes(attributes) {
        for (const [key, value] of Object.entries(attributes)) span.setAttribute(key, value as never);
        return span;
      },
      addEvent(eventName, attributesOrTime, time) {
        if (ended) return span;
        const attributes =
          attributesOrTime && typeof attributesOrTime === "object" && !Array.isArray(attributesOrTime)
            ? (attributesOrTime as Record<string, unknown>)
            : {};
        record.events.push({
          timeUnixNano: nanos(time),
          name: eventName,
          attributes: toKeyValues(attributes),
        });
        return span;
      },
      addLink: () => span,
      addLinks: () => span,
      setStatus(status) {
        if (!ended)
          record.status = { code: status.code, ...(status.message ? { message: status.message } : {}) };
        return span;
      },
      updateName(next) {
        if (!ended) record.name = next;
        return span;
      },
      end(endTime) {
        if (ended) return;
        ended = true;
        record.endTimeUnixNano = nanos(endTime);
        finished(record);
      },
      isRecording: () => !ended,
      recordException(exception) {
        const error = typeof exception === "string" ? { message: exception } : exception;
        span.addEvent("exception", {
          "exception.type": (error as { name?: string }).name ?? "Error",
          "exception.message": error.message ?? String(exception),
        });
      },
    };
    return span;
  };

  const tracer = {
    startSpan,
    startActiveSpan: () => {
      throw new Error("goat's OTLP tracer does not make active spans");
    },
  } as unknown as Tracer;

  return {
    tracer,
    async flush(timeoutMs = 3_000) {
      drain();
      const all = Promise.allSettled([...sending]);
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise((r) => (wait = setTimeout(r, timeoutMs)))]);
      if (wait) clearTimeout(wait);
    },
  };
}

/** A time (ms since the epoch, a Date, an hrtime pair, or now) as OTLP's nanosecond string. */
function nanos(time?: unknown): string {
  if (Array.isArray(time)) return (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();
  const ms = time instanceof Date ? time.getTime() : typeof time === "number" ? time : Date.now();
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}

function toKeyValues(attributes: Record<string, unknown>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) setValue(out, key, value);
  return out;
}

function setValue(list: KeyValue[], key: string, value: unknown): void {
  const converted = anyValue(value);
  if (!converted) return;
  const at = list.findIndex((kv) => kv.key === key);
  if (at >= 0) list[at] = { key, value: converted };
  else list.push({ key, value: converted });
}

function anyValue(value: unknown): AnyValue | undefined {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number")
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value))
    return { arrayValue: { values: value.map(anyValue).filter((v): v is AnyValue => v !== undefined) } };
  return undefined;
}
