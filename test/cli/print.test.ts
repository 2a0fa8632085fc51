import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLAUDE_CODE_PROTOCOL_VERSION, GOAT_VERSION } from "../../src/version.js";
import { reply } from "../support/mock-provider.js";
import { cleanEnv, jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-cli");

const run = (args: string[], stdin?: string) => runCli(args, { env: fx.env, cwd: fx.work.path, stdin });

describe("print mode output formats", () => {
  it("text prints the final answer and exits 0", async () => {
    fx.mock.enqueue(reply.text("Hello from the mock."));
    const r = await run(["-p", "say hello"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Hello from the mock.\n");
    expect(r.code).toBe(0);
    const body = fx.mock.requests[0].body;
    expect(body.messages[0]).toMatchObject({ role: "user" });
    expect(JSON.stringify(body.messages[0].content)).toContain("say hello");
  });

  it("reads the prompt from stdin when -p has no argument", async () => {
    fx.mock.enqueue(reply.text("got it"));
    const r = await run(["-p"], "prompt from a pipe");
    expect(r.stdout).toBe("got it\n");
    expect(JSON.stringify(fx.mock.requests[0].body.messages)).toContain("prompt from a pipe");
  });

  it("--json-schema: json carries structured_output, text prints it as JSON", async () => {
    const schema = JSON.stringify({
      type: "object",
      properties: { city: { type: "string" }, population: { type: "integer" } },
      required: ["city", "population"],
    });
    const answer = (population: unknown) =>
      reply.toolCalls([{ name: "StructuredOutput", id: "toolu_so", input: { city: "Lyon", population } }]);
    fx.mock.enqueue(answer("many"), answer(522_000));
    const json = await run(["-p", "biggest city?", "--json-schema", schema, "--output-format", "json"]);
    expect(json.code).toBe(0);
    expect(jsonLines(json.stdout)[0]).toMatchObject({
      subtype: "success",
      structured_output: { city: "Lyon", population: 522_000 },
    });
    // The model's first, invalid answer was sent back with the validator's reason.
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain(
      "/population: expected integer, received string",
    );
    fx.mock.enqueue(answer(522_000));
    const text = await run(["-p", "biggest city?", "--json-schema", schema]);
    expect(text.code).toBe(0);
    expect(JSON.parse(text.stdout)).toEqual({ city: "Lyon", population: 522_000 });
  });

  it("json prints the result message as one object", async () => {
    fx.mock.enqueue(reply.text("42", { usage: { input: 10, output: 3 } }));
    const r = await run(["-p", "answer", "--output-format", "json"]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: "result", subtype: "success", is_error: false, result: "42" });
    expect(lines[0].usage.output_tokens).toBe(3);
    expect(typeof lines[0].session_id).toBe("string");
  });

  it("stream-json prints every message as a JSON line, system/init first and result last", async () => {
    fx.mock.enqueue(reply.text("streamed"));
    const r = await run([
      "-p",
      "go",
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
    ]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(lines[0].tools).toContain("Read");
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "streamed" });
    expect(lines.some((m) => m.type === "assistant")).toBe(true);
    const deltas = lines.filter((m) => m.type === "stream_event" && m.event.type === "content_block_delta");
    expect(deltas.map((m) => m.event.delta.text).join("")).toBe("streamed");
    for (const m of lines) expect(m.session_id).toBe(lines[0].session_id);
  });

  it("runs a real tool: the model reads a temp file and the result carries its content", async () => {
    const file = join(fx.work.path, "notes.txt");
    writeFileSync(file, "the secret is 7\n");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: file } }]),
      reply.text("It says 7."),
    );
    const r = await run(["-p", "read notes", "--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    const toolResult = lines.find((m) => m.type === "user" && Array.isArray(m.message.content));
    expect(JSON.stringify(toolResult.message.content)).toContain("the secret is 7");
    expect(lines.at(-1).result).toBe("It says 7.");
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("the secret is 7");
  });
});

describe("multi-turn stream-json input", () => {
  it("answers each user line with its own result, the second request carrying the first exchange", async () => {
    fx.mock.enqueue(reply.text("first answer"), reply.text("second answer"));
    const input = [
      JSON.stringify({ type: "user", message: { role: "user", content: "question one" } }),
      "this line is not json",
      JSON.stringify({ type: "user", message: { role: "user", content: "question two" } }),
      "",
    ].join("\n");
    const r = await run(["-p", "--input-format", "stream-json", "--output-format", "stream-json"], input);
    expect(r.code).toBe(0);
    const results = jsonLines(r.stdout).filter((m) => m.type === "result");
    expect(results.map((m) => m.result)).toEqual(["first answer", "second answer"]);
    expect(r.stderr).toMatch(/stdin line 2 skipped: not JSON/);
    const second = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(second).toContain("question one");
    expect(second).toContain("first answer");
    expect(second).toContain("question two");
  });
});

describe("exit status and errors", () => {
  it("an error result prints the error on stderr and exits 1", async () => {
    fx.mock.enqueue(reply.error(400, { message: "bad request from mock" }));
    const r = await run(["-p", "fail please"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^goat: .*bad request from mock/);
  });

  it("a usage error is one line naming the fix, exit 1", async () => {
    const r = await run(["-p", "x", "--output-format", "yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('goat: --output-format must be one of text, json, stream-json (got "yaml")\n');
    const unknown = await run(["--frobnicate"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown option --frobnicate/);
    const typo = await run(["-p", "x", "--modle", "anthropic/claude-sonnet-4-5"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/unknown option --modle; did you mean --model\?/);
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("without an API key says which variables to set, no stack trace", async () => {
    fx.env = cleanEnv({ GOAT_HOME: fx.home.path });
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(r.stderr).toMatch(/OPENAI_API_KEY/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it("a key is optional when the base URL points at this machine", async () => {
    fx.env = cleanEnv({ GOAT_HOME: fx.home.path, ANTHROPIC_BASE_URL: fx.mock.anthropicBaseURL });
    fx.mock.enqueue(reply.text("local gateway"));
    const r = await run(["-p", "hi"]);
    expect(r.stdout).toBe("local gateway\n");
    expect(r.code).toBe(0);
  });

  it("--version prints the Claude Code protocol version, then Goat's, each named, and exits 0", async () => {
    const r = await run(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `${CLAUDE_CODE_PROTOCOL_VERSION} (Claude Code protocol version; Goat version ${GOAT_VERSION})\n`,
    );
    // The Python Agent SDK's check: a leading x.y.z, at least 2.0.0.
    const [major] = /^(\d+)\.(\d+)\.(\d+)/.exec(r.stdout)!.slice(1).map(Number);
    expect(major).toBeGreaterThanOrEqual(2);
    expect((await run(["-v"])).stdout).toBe(r.stdout);
  });

  it("SIGINT during a slow stream interrupts, prints the result and exits 130", async () => {
    fx.mock.enqueue(reply.text("x".repeat(400), { delayMs: 100, chunkSize: 4 }));
    let sawDelta!: () => void;
    const started = new Promise<void>((resolve) => {
      sawDelta = resolve;
    });
    const r = await runCli(["-p", "slow", "--output-format", "stream-json", "--include-partial-messages"], {
      env: fx.env,
      cwd: fx.work.path,
      onSpawn: (child) => {
        child.stdin?.end();
        child.stdout?.on("data", (b: Buffer) => {
          if (b.toString().includes("content_block_delta")) sawDelta();
        });
        void started.then(() => child.kill("SIGINT"));
      },
    });
    expect(r.code).toBe(130);
    const lines = jsonLines(r.stdout);
    expect(lines.at(-1).type).toBe("result");
  });
});

describe("denied calls in print mode", () => {
  it("says each denial on stderr, names the CLI flags that would allow it to the model, and exits 0", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", input: { command: "npm test" } },
        { name: "Write", input: { file_path: "notes.txt", content: "x" } },
      ]),
      reply.text("I was not allowed."),
    );
    const r = await run(["-p", "test and note"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("I was not allowed.\n");
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("goat: denied "));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^goat: denied Bash: .*--allowedTools "Bash\(npm test:\*\)"/);
    expect(lines[1]).toMatch(/^goat: denied Write: .*--permission-mode acceptEdits/);
    // What the model was told: the flags, never the library's option names.
    const told = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(told).toContain('--allowedTools \\"Bash(npm test:*)\\"');
    expect(told).toContain("--permission-mode acceptEdits");
    expect(told).not.toMatch(/canUseTool|permissionMode|allowedTools:/);
  });
});

describe("warnings", () => {
  it("a model with no known price is reported once, whether named bare or with its provider", async () => {
    fx.mock.enqueue(reply.text("priced at nothing"));
    const r = await run(["-p", "hi", "--model", "claude-zz-unpriced"]);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/No price is known/g)).toHaveLength(1);
  });

  it("an MCP server that fails to start is said once on stderr with its error; the run goes on", async () => {
    // Only system/init carried the failure: with text output the model silently lacked the tools.
    fx.mock.enqueue(reply.text("answered without it"));
    const config = JSON.stringify({ mcpServers: { broken: { command: "/no/such/goat-mcp-server" } } });
    const r = await run(["-p", "hi", "--mcp-config", config]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("answered without it\n");
    expect(r.stderr.match(/^goat: MCP server "broken" failed to start: .*ENOENT/gm)).toHaveLength(1);
  });
});

describe("provider failures", () => {
  it("a host name that does not resolve fails at once, its provider named once", async () => {
    fx.env.ANTHROPIC_BASE_URL = "http://no-such-host.invalid";
    const started = Date.now();
    const r = await run(["-p", "hi"]);
    const tookMs = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("retrying");
    // Retried, it took 12-15 s; without retries it takes the start-up and one DNS answer.
    expect(tookMs).toBeLessThan(5_000);
    expect(r.stderr).toMatch(
      /^goat: anthropic network: could not reach http:\/\/no-such-host\.invalid: the host name no-such-host\.invalid does not resolve/m,
    );
  });

  it("a stalled answer's message names the providerTimeouts option", async () => {
    fx.env.GOAT_STREAM_IDLE_TIMEOUT_MS = "200";
    fx.env.GOAT_FIRST_BYTE_TIMEOUT_MS = "200";
    fx.mock.enqueue(reply.text("late", { delayMs: 5_000 }));
    let firstRetry = "";
    const r = await runCli(["-p", "hi"], {
      env: fx.env,
      cwd: fx.work.path,
      onSpawn(child) {
        child.stdin?.end();
        // The first retry line says why; the test ends the run there (the mock has no second answer).
        child.stderr?.on("data", (b: Buffer) => {
          const line = b
            .toString()
            .split("\n")
            .find((l) => l.includes("retrying"));
          if (line && !firstRetry) {
            firstRetry = line;
            child.kill("SIGTERM");
          }
        });
      },
    });
    expect(r.code).toBe(143);
    expect(firstRetry).toMatch(/raise the limit with GOAT_\w+_TIMEOUT_MS or the providerTimeouts option\)/);
  });
});

describe("--cwd", () => {
  it("rejects a folder that does not exist with a usage error", async () => {
    const r = await run(["-p", "hi", "--cwd", join(fx.work.path, "no-such-dir")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--cwd .* is not a directory/);
    expect(fx.mock.requests).toHaveLength(0);
  });
});

describe("settings", () => {
  it("takes the model from the settings file and applies its env", async () => {
    mkdirSync(join(fx.work.path, ".goat"));
    writeFileSync(
      join(fx.work.path, ".goat", "settings.json"),
      JSON.stringify({ model: "anthropic/claude-from-settings", env: { GOAT_TEST_SETTING: "1" } }),
    );
    fx.mock.enqueue(reply.text("ok"));
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(0);
    expect(fx.mock.requests[0].body.model).toBe("claude-from-settings");
  });

  it("GOAT_MODEL wins over the settings model, --model over both", async () => {
    writeFileSync(
      join(fx.home.path, "settings.json"),
      JSON.stringify({ model: "anthropic/claude-settings" }),
    );
    fx.env.GOAT_MODEL = "anthropic/claude-env";
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    await run(["-p", "hi"]);
    await run(["-p", "hi", "--model", "anthropic/claude-flag"]);
    expect(fx.mock.requests.map((r) => r.body.model)).toEqual(["claude-env", "claude-flag"]);
  });

  it("--setting-sources picks which settings files are read (empty: none), as the Claude Agent SDK passes it", async () => {
    mkdirSync(join(fx.work.path, ".goat"));
    writeFileSync(
      join(fx.work.path, ".goat", "settings.json"),
      JSON.stringify({ model: "anthropic/claude-project" }),
    );
    writeFileSync(join(fx.home.path, "settings.json"), JSON.stringify({ model: "anthropic/claude-user" }));
    fx.mock.enqueue(reply.text("a"), reply.text("b"), reply.text("c"));
    await run(["-p", "hi", "--setting-sources", "user"]);
    await run(["-p", "hi", "--setting-sources="]);
    await run(["-p", "hi", "--setting-sources", "user,project"]);
    expect(fx.mock.requests.map((r) => r.body.model)).toEqual([
      "claude-user",
      "claude-sonnet-4-5",
      "claude-project",
    ]);
  });

  it("invalid JSON in a settings file exits 1 naming the file", async () => {
    const file = join(fx.home.path, "settings.json");
    writeFileSync(file, "{ not json");
    const r = await run(["-p", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/invalid JSON/);
    expect(fx.mock.requests).toHaveLength(0);
  });
});

describe("--system-prompt and the project's instruction files", () => {
  it("a prompt of one's own replaces Goat's, and AGENTS.md / CLAUDE.md still follow it, as CLAUDE.md does in Claude Code", async () => {
    writeFileSync(join(fx.work.path, "AGENTS.md"), "Always answer in French.");
    writeFileSync(join(fx.work.path, "CLAUDE.md"), "Never touch the vendor folder.");
    fx.mock.enqueue(reply.text("a"), reply.text("b"), reply.text("c"));
    await run(["-p", "hi", "--system-prompt", "You are a terse reviewer."]);
    await run(["-p", "hi", "--system-prompt", "You are a terse reviewer.", "--setting-sources", "user"]);
    await run(["-p", "hi", "--append-system-prompt", "Be terse."]);
    const system = fx.mock.requests.map((r) => JSON.stringify(r.body.system));
    expect(system[0]).toContain("You are a terse reviewer.");
    expect(system[0]).not.toContain("You are Goat");
    expect(system[0]).toContain("Always answer in French.");
    expect(system[0]).toContain("Never touch the vendor folder.");
    // Without the "project" setting source (the Agent SDKs' default), the files are not read.
    expect(system[1]).toContain("You are a terse reviewer.");
    expect(system[1]).not.toContain("Always answer in French.");
    // --append-system-prompt keeps Goat's prompt, files included, and adds to it.
    expect(system[2]).toContain("You are Goat");
    expect(system[2]).toContain("Always answer in French.");
    expect(system[2]).toContain("Be terse.");
  });

  it('reads every memory level by default (~/.claude/CLAUDE.md, CLAUDE.local.md, imports) and none with --setting-sources ""', async () => {
    mkdirSync(join(fx.home.path, "claude"), { recursive: true });
    writeFileSync(join(fx.home.path, "claude", "CLAUDE.md"), "USER-MEMORY");
    writeFileSync(join(fx.work.path, "CLAUDE.local.md"), "LOCAL-MEMORY see @docs/style.md");
    mkdirSync(join(fx.work.path, "docs"), { recursive: true });
    writeFileSync(join(fx.work.path, "docs", "style.md"), "IMPORTED-STYLE");
    fx.mock.enqueue(reply.text("a"), reply.text("b"));
    await run(["-p", "hi"]);
    await run(["-p", "hi", "--setting-sources", ""]);
    const system = fx.mock.requests.map((r) => JSON.stringify(r.body.system));
    for (const text of ["USER-MEMORY", "LOCAL-MEMORY", "IMPORTED-STYLE"]) {
      expect(system[0]).toContain(text);
      expect(system[1]).not.toContain(text);
    }
  });
});
