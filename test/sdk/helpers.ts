/**
 * Running `goat` under the official Claude Agent SDK in tests: the SDK starts the built CLI as its
 * `pathToClaudeCodeExecutable`, with the CLI fixture's environment (mock provider, temp GOAT_HOME and
 * cwd). `runSdk` collects a whole query; `sdkOptions` gives the options every query needs.
 */
import { CLI, type CliFixture } from "../cli/helpers.js";
import type { SdkMessage, SdkQuery } from "./claude-sdk.js";

/** The options that point the SDK at goat and the fixture. */
export function sdkOptions(fx: CliFixture, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    pathToClaudeCodeExecutable: CLI,
    cwd: fx.work.path,
    env: fx.env,
    ...extra,
  };
}

/** The messages of a query until it ends, and the error it ended with (if any). */
export interface SdkRun {
  messages: SdkMessage[];
  error?: Error;
}

/** Iterates a query to its end, never throwing. */
export async function collect(q: SdkQuery, onMessage?: (m: SdkMessage) => void): Promise<SdkRun> {
  const messages: SdkMessage[] = [];
  try {
    for await (const m of q) {
      messages.push(m);
      onMessage?.(m);
    }
    return { messages };
  } catch (error) {
    return { messages, error: error as Error };
  }
}

/** The result messages of a run. */
export const results = (run: SdkRun) => run.messages.filter((m) => m.type === "result");

/** The system/init messages of a run. */
export const inits = (run: SdkRun) => run.messages.filter((m) => m.type === "system" && m.subtype === "init");

/** The tool_result blocks of a run, in order. */
export function toolResults(run: SdkRun): any[] {
  return run.messages
    .filter((m) => m.type === "user" && Array.isArray(m.message?.content))
    .flatMap((m) => m.message.content.filter((b: any) => b.type === "tool_result"));
}

/** A push-driven AsyncIterable of user messages, for streaming input. */
export function userStream(): {
  stream: AsyncIterable<SdkMessage>;
  push(text: string, uuid?: string): void;
  end(): void;
} {
  const queue: SdkMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(text, uuid) {
      queue.push({
        type: "user",
        message: { role: "user", content: text },
        parent_tool_use_id: null,
        ...(uuid ? { uuid } : {}),
      });
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    stream: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next) yield next;
          else if (ended) return;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    },
  };
}
