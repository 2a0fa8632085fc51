/**
 * `options.env` is the session's environment, as in the Claude Agent SDK: providers take their keys
 * and base URLs from it, and Bash commands, command hooks and stdio MCP servers run with it. Nothing
 * here is set in `process.env`, so a value that arrives proves it came through the option.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { collect, resultOf, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-env-")));
  return () => fs.rmSync(dir, { recursive: true, force: true });
});

/** process.env without any provider settings, plus `extra`. */
function sessionEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ANTHROPIC_|OPENAI_|GOAT_)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

function toolText(messages: SDKMessage[]): string {
  return messages
    .flatMap((m) =>
      m.type === "user" && Array.isArray(m.message.content)
        ? m.message.content.filter((b) => b.type === "tool_result")
        : [],
    )
    .map((b) => (typeof b.content === "string" ? b.content : JSON.stringify(b.content)))
    .join("\n");
}

describe("options.env", () => {
  it.each([
    ["anthropic/claude-sonnet-4-5", "ANTHROPIC", () => mock.anthropicBaseURL, "x-api-key", "key-from-env"],
    ["openai/gpt-4.1", "OPENAI", () => mock.openaiBaseURL, "authorization", "Bearer key-from-env"],
  ])("gives %s its key and base URL", async (model, prefix, base, header, sent) => {
    mock.enqueue(reply.text("reached"));
    const result = resultOf(
      await collect(
        query({
          prompt: "hi",
          options: {
            model,
            persistSession: false,
            tools: [],
            env: sessionEnv({ [`${prefix}_API_KEY`]: "key-from-env", [`${prefix}_BASE_URL`]: base() }),
          },
        }),
      ),
    );
    expect(result.result).toBe("reached");
    expect(mock.requests[0].headers[header]).toBe(sent);
  });

  it("reaches Bash commands (foreground and background) and command hooks", async () => {
    const hookFile = path.join(dir, "hook.txt");
    const bgFile = path.join(dir, "bg.txt");
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "echo fg=$GOAT_TEST_MARK" } }]),
      reply.toolCalls([
        { name: "Bash", input: { command: `echo bg=$GOAT_TEST_MARK > ${bgFile}`, run_in_background: true } },
      ]),
      // The session kills its background shells when it ends: it ends only once that one has written.
      async () => {
        const written = () => fs.existsSync(bgFile) && fs.readFileSync(bgFile, "utf8").endsWith("\n");
        await expect.poll(written, { timeout: 10_000 }).toBe(true);
        return reply.text("done");
      },
    );
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          model: "anthropic/claude-sonnet-4-5",
          provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "k" },
          persistSession: false,
          permissionMode: "bypassPermissions",
          tools: ["Bash"],
          cwd: dir,
          env: sessionEnv({ GOAT_TEST_MARK: "m4rk" }),
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [{ type: "command", command: `echo hook=$GOAT_TEST_MARK >> ${hookFile}` }],
              },
            ],
          },
        },
      }),
    );
    const text = toolText(messages);
    expect(text).toContain("fg=m4rk");
    expect(fs.readFileSync(bgFile, "utf8")).toBe("bg=m4rk\n");
    expect(fs.readFileSync(hookFile, "utf8")).toContain("hook=m4rk");
  });

  it("is the environment stdio MCP servers start from", async () => {
    const out = path.join(dir, "mcp-env.txt");
    const server = writeStdioServer(dir);
    mock.enqueue(reply.text("ok"));
    await collect(
      query({
        prompt: "hi",
        options: {
          model: "anthropic/claude-sonnet-4-5",
          provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "k" },
          persistSession: false,
          tools: [],
          mcpServers: {
            probe: {
              command: "sh",
              args: ["-c", `printf %s "$GOAT_TEST_MARK" > ${out}; exec "${process.execPath}" ${server}`],
            },
          },
          env: sessionEnv({ GOAT_TEST_MARK: "from-session" }),
        },
      }),
    );
    expect(fs.readFileSync(out, "utf8")).toBe("from-session");
  });
});
