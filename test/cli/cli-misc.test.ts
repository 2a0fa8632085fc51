/**
 * Command-line details users trip on: piped stdin beside a prompt is appended to it; an empty prompt,
 * `--continue` with nothing to continue and a flag whose value looks like a flag each get one line
 * naming the fix; a budget for a model with no price is refused until the settings give one; on Node
 * 22.1+, the program's compiled code goes to Node's compile cache.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import module from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { runCli, trustWorkFolder, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-misc");

/** The text of the first request's last user message. */
function lastUserText(): string {
  const messages = fx.mock.requests[0].body.messages as Array<{ role: string; content: unknown }>;
  const content = messages.filter((m) => m.role === "user").at(-1)?.content;
  if (typeof content === "string") return content;
  return (content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("");
}

describe("goat -p with piped stdin", () => {
  it("appends what was piped to the prompt", async () => {
    fx.mock.enqueue(reply.text("summary"));
    const r = await runCli(["-p", "summarise"], {
      env: fx.env,
      cwd: fx.work.path,
      stdin: "DATA line 1\nDATA line 2\n",
    });
    expect(r.code).toBe(0);
    expect(lastUserText()).toBe("summarise\n\nDATA line 1\nDATA line 2\n");
  });

  it("runs with the prompt alone when stdin stays open and silent, saying so", async () => {
    fx.mock.enqueue(reply.text("answer"));
    const r = await runCli(["-p", "just this"], {
      env: fx.env,
      cwd: fx.work.path,
      onSpawn: () => {}, // stdin left open, nothing written
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("answer");
    expect(r.stderr).toMatch(/stdin is open but sent nothing in 3 s; running with the prompt alone/);
    expect(lastUserText()).toBe("just this");
  });
});

describe("usage errors name the fix", () => {
  it.each([
    [["-p", ""], /^goat: the prompt is empty: give one/],
    [["-p", "  "], /^goat: the prompt is empty/],
    [
      ["-p", "hi", "--max-budget-usd", "-1"],
      /^goat: --max-budget-usd needs a value, and "-1" starts with "-" so it reads as a flag; write --max-budget-usd=-1/,
    ],
    [
      ["--model", "-p", "hi"],
      /^goat: --model needs a value, but the next argument "-p" is a flag; put the value right after --model/,
    ],
    [["-r", "-p", "hi"], /^goat: --resume needs a /],
    [
      ["-p", "hi", "--resume", "0b7c5d2e-unknown"],
      /^goat: No conversation found with session ID: 0b7c5d2e-unknown \(goat sessions lists/,
    ],
    [["-p", "hi", "--resume", "../../etc"], /^goat: --resume: Invalid session id "..\/..\/etc"/],
  ])("goat %j", async (args, message) => {
    const r = await runCli(args as string[], { env: fx.env, cwd: fx.work.path });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/ambiguous|Did you forget/);
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("-p -c with nothing to continue starts a new session, as Claude Code does under the Agent SDKs", async () => {
    fx.mock.enqueue(reply.text("fresh"), reply.text("continued"));
    const first = await runCli(["-p", "one", "-c", "--output-format", "json"], {
      env: fx.env,
      cwd: fx.work.path,
    });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).result).toBe("fresh");
    // That new session is the one the next -c continues.
    const second = await runCli(["-p", "two", "-c", "--output-format", "json"], {
      env: fx.env,
      cwd: fx.work.path,
    });
    expect(JSON.parse(second.stdout).session_id).toBe(JSON.parse(first.stdout).session_id);
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("fresh");
  });

  it("-c continues when there is a session to continue", async () => {
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    expect((await runCli(["-p", "one"], { env: fx.env, cwd: fx.work.path })).code).toBe(0);
    const r = await runCli(["-p", "two", "-c"], { env: fx.env, cwd: fx.work.path });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("second");
  });
});

describe("--max-budget-usd for a model with no price", () => {
  it("is refused with how to give a price, and works once the settings give one", async () => {
    const args = ["-p", "hi", "--model", "anthropic/house-model", "--max-budget-usd", "1"];
    const refused = await runCli(args, { env: fx.env, cwd: fx.work.path });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no price is known for the model "anthropic\/house-model".*modelPricing/);
    expect(fx.mock.requests).toHaveLength(0);

    mkdirSync(join(fx.work.path, ".goat"));
    writeFileSync(
      join(fx.work.path, ".goat", "settings.json"),
      JSON.stringify({ modelPricing: { "anthropic/house-model": { input: 1, output: 2 } } }),
    );
    trustWorkFolder(fx); // an untrusted folder's prices are left out (a price of 0 would defeat a budget)
    fx.mock.enqueue(reply.text("priced", { usage: { input: 1000, output: 1000 } }));
    const ok = await runCli([...args, "--output-format", "json"], { env: fx.env, cwd: fx.work.path });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).total_cost_usd).toBeCloseTo(0.003, 10);
  });
});

// Node 20 has no compile cache (goat's call does nothing there), so this runs on Node 22.1 and later only.
const hasCompileCache = "enableCompileCache" in module;

describe.skipIf(!hasCompileCache)("Node's compile cache", () => {
  it("holds the program's compiled code after a run, in the default place under the temp folder", async () => {
    // TMPDIR moves os.tmpdir(), so the default cache directory is this test's own. No
    // NODE_COMPILE_CACHE: with it Node would cache by itself, whatever goat does.
    const tmp = join(fx.work.path, "tmp");
    mkdirSync(tmp);
    const env = { ...fx.env, TMPDIR: tmp };
    delete (env as Record<string, string | undefined>).NODE_COMPILE_CACHE;
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    expect((await runCli(["-p", "one"], { env, cwd: fx.work.path })).code).toBe(0);
    const cache = join(tmp, "node-compile-cache");
    expect(existsSync(cache)).toBe(true);
    const entries = readdirSync(cache, { recursive: true });
    expect(entries.length).toBeGreaterThan(5);
    // A second start reads the cache and still runs.
    const second = await runCli(["-p", "two"], { env, cwd: fx.work.path });
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe("second");
  });
});

describe("goat --help", () => {
  it("lists every subcommand, each of which answers its own --help", async () => {
    const help = await runCli(["--help"], { env: fx.env, cwd: fx.work.path });
    expect(help.code).toBe(0);
    // Claude Code's cloud switches and the OpenTelemetry export are named where users look for them.
    for (const variable of ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "OTEL_TRACES_EXPORTER"])
      expect(help.stdout).toContain(variable);
    for (const command of [
      "sessions",
      "serve",
      "acp",
      "worker",
      "submit",
      "follow",
      "send",
      "cancel",
      "durable",
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^ {2}${command}\\b`, "m"));
      const own = await runCli([command, "--help"], { env: fx.env, cwd: fx.work.path });
      expect(own.code).toBe(0);
      expect(own.stdout).toContain(`goat ${command}`);
      // Nothing else on stderr (no library's deprecation warnings).
      expect(own.stderr).toBe("");
    }
  });
});

describe("goat help and bad values", () => {
  it("goat help prints the help, goat help <command> that command's, and the model is not asked", async () => {
    const help = await runCli(["help"], { env: fx.env, cwd: fx.work.path });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}sessions\b/m);
    const serve = await runCli(["help", "serve"], { env: fx.env, cwd: fx.work.path });
    expect(serve.code).toBe(0);
    expect(serve.stdout).toContain("goat serve");
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("goat sessions --limit -1 says what the limit must be (Node's parser called it ambiguous)", async () => {
    const r = await runCli(["sessions", "--limit", "-1"], { env: fx.env, cwd: fx.work.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--limit must be a whole number ≥ 1 (got "-1")');
  });
});
