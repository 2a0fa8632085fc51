/**
 * Sessions through query(): transcripts written as they happen, resume, continue, fork,
 * resumeSessionAt, persistSession: false, and a process killed mid-tool then resumed.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { listSessions } from "../../src/session/api.js";
import { createJsonlSessionStore } from "../../src/session/jsonl-store.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, tempDir, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
let home: string;
let cwd: string;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  home = tempDir("goat-home-");
  cwd = tempDir("goat-cwd-");
});

const persisted = (extra: QueryOptions = {}) =>
  mockOptions(mock, "anthropic", {
    persistSession: true,
    cwd,
    env: { GOAT_HOME: home },
    tools: [echoTool],
    ...extra,
  });

/** Role and text of each message sent, tool blocks shown as their JSON. */
const transcriptTexts = (body: any) =>
  body.messages.map((m: any) => [
    m.role,
    typeof m.content === "string"
      ? m.content
      : m.content.map((b: any) => (b.type === "text" ? b.text : JSON.stringify(b))).join(""),
  ]);

describe("session persistence", () => {
  it("writes the transcript as JSONL under GOAT_HOME and resumes it with the whole history", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "echo", input: { text: "a" }, id: "e1" }]),
      reply.text("first answer"),
    );
    const first = await collect(query({ prompt: "remember the word giraffe", options: persisted() }));
    const sessionId = resultOf(first).session_id;
    const key = cwd.replace(/[^a-zA-Z0-9]/g, "-");
    const file = path.join(home, "projects", key, `${sessionId}.jsonl`);
    const lines = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "header", cwd, sessionId, parentUuid: null });
    expect(lines.map((l) => l.type)).toEqual(["header", "user", "assistant", "user", "assistant", "result"]);
    for (let i = 1; i < lines.length; i++) expect(lines[i].parentUuid).toBe(lines[i - 1].uuid);

    mock.requests.length = 0;
    mock.enqueue(reply.text("giraffe"));
    const second = await collect(
      query({ prompt: "what was the word?", options: persisted({ resume: sessionId }) }),
    );
    expect(resultOf(second).session_id).toBe(sessionId);
    const sent = transcriptTexts(mock.requests[0].body);
    expect(sent[0]).toEqual(["user", "remember the word giraffe"]);
    expect(sent.at(-1)).toEqual(["user", "what was the word?"]);
    expect(toolResultsSent(mock.requests[0].body)).toEqual([
      { id: "e1", content: "echo: a", isError: false },
    ]);
  });

  it("continue: true picks the most recent session in the cwd", async () => {
    mock.enqueue(reply.text("one"), reply.text("two"), reply.text("three"));
    await collect(query({ prompt: "older session", options: persisted() }));
    await new Promise((r) => setTimeout(r, 20));
    const newer = resultOf(
      await collect(query({ prompt: "newer session", options: persisted() })),
    ).session_id;
    mock.requests.length = 0;
    const continued = await collect(query({ prompt: "go on", options: persisted({ continue: true }) }));
    expect(resultOf(continued).session_id).toBe(newer);
    expect(transcriptTexts(mock.requests[0].body)[0]).toEqual(["user", "newer session"]);
  });

  it("forkSession writes a new session with the old history and leaves the original alone", async () => {
    mock.enqueue(reply.text("base answer"), reply.text("fork answer"));
    const base = resultOf(await collect(query({ prompt: "base", options: persisted() }))).session_id;
    const store = createJsonlSessionStore({ home });
    const before = (await store.load(base))!.length;
    const forked = await collect(
      query({ prompt: "branch", options: persisted({ resume: base, forkSession: true }) }),
    );
    const forkId = resultOf(forked).session_id;
    expect(forkId).not.toBe(base);
    expect((await store.load(base))!.length).toBe(before);
    const forkEntries = (await store.load(forkId))!;
    expect(forkEntries.some((e: any) => e.type === "user" && e.message.content === "branch")).toBe(true);
    expect(transcriptTexts(mock.requests[1].body)[0]).toEqual(["user", "base"]);
    store.close();
  });

  it("resumeSessionAt resumes from an earlier message", async () => {
    mock.enqueue(reply.text("answer one"), reply.text("answer two"), reply.text("answer three"));
    const id = resultOf(await collect(query({ prompt: "q1", options: persisted() }))).session_id;
    await collect(query({ prompt: "q2", options: persisted({ resume: id }) }));
    const store = createJsonlSessionStore({ home });
    const entries = (await store.load(id))!;
    store.close();
    const firstAnswer = entries.find((e: any) => e.type === "assistant")!;
    mock.requests.length = 0;
    await collect(
      query({ prompt: "q3", options: persisted({ resume: id, resumeSessionAt: firstAnswer.uuid }) }),
    );
    expect(transcriptTexts(mock.requests[0].body)).toEqual([
      ["user", "q1"],
      ["assistant", "answer one"],
      ["user", "q3"],
    ]);
  });

  it("resumeSessionAt takes the uuid of the assistant message the host was given", async () => {
    mock.enqueue(reply.text("answer one"), reply.text("answer two"), reply.text("answer three"));
    const first = await collect(query({ prompt: "q1", options: persisted() }));
    const id = resultOf(first).session_id;
    const shown = first.find((m) => m.type === "assistant")!;
    await collect(query({ prompt: "q2", options: persisted({ resume: id }) }));
    mock.requests.length = 0;
    const third = await collect(
      query({ prompt: "q3", options: persisted({ resume: id, resumeSessionAt: shown.uuid }) }),
    );
    expect(resultOf(third).subtype).toBe("success");
    expect(transcriptTexts(mock.requests[0].body)).toEqual([
      ["user", "q1"],
      ["assistant", "answer one"],
      ["user", "q3"],
    ]);
  });

  it("persistSession: false writes nothing", async () => {
    mock.enqueue(reply.text("ephemeral"));
    await collect(query({ prompt: "x", options: persisted({ persistSession: false }) }));
    expect(fs.existsSync(path.join(home, "projects"))).toBe(false);
  });

  it("lists sessions with first prompt, message count and cost", async () => {
    mock.enqueue(reply.text("listed", { usage: { input: 1000, output: 1000 } }));
    const id = resultOf(await collect(query({ prompt: "list me", options: persisted() }))).session_id;
    const infos = await listSessions({ cwd, store: createJsonlSessionStore({ home }) });
    expect(infos[0]).toMatchObject({ sessionId: id, firstPrompt: "list me", messageCount: 2 });
    expect(infos[0].totalCostUsd).toBeGreaterThan(0);
  });
});

describe("a process killed in the middle of a tool", () => {
  it("leaves a transcript that resumes with an explicit interrupted result, nothing re-run", async () => {
    const marker = path.join(cwd, "runs.txt");
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: `echo ran >> ${marker}; sleep 30` }, id: "b1" }]),
    );
    const script = `
      import { query } from ${JSON.stringify(path.resolve("dist/sdk/query.js"))};
      const q = query({ prompt: "run the slow thing", options: {
        model: "anthropic/claude-sonnet-4-5",
        provider: { type: "anthropic", baseURL: ${JSON.stringify(mock.anthropicBaseURL)}, apiKey: "k" },
        cwd: ${JSON.stringify(cwd)}, env: { GOAT_HOME: ${JSON.stringify(home)} },
        permissionMode: "bypassPermissions", tools: ["Bash"], retry: { maxRetries: 0 } } });
      for await (const m of q) if (m.type === "tool_progress") console.log("TOOL_STARTED " + m.session_id);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const sessionId = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        const match = /TOOL_STARTED (\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.on("exit", (code) => reject(new Error(`child exited early with ${code}: ${out}`)));
    });
    // Let the command start, then kill the whole agent without warning.
    const deadline = Date.now() + 5000;
    while (!fs.existsSync(marker) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    mock.requests.length = 0;
    mock.enqueue(reply.text("I see the command was interrupted"));
    const resumed = await collect(
      query({ prompt: "what happened?", options: persisted({ resume: sessionId, tools: ["Bash"] }) }),
    );
    expect(resultOf(resumed).subtype).toBe("success");
    const sent = toolResultsSent(mock.requests[0].body);
    expect(sent).toHaveLength(1);
    expect(sent[0].id).toBe("b1");
    expect(sent[0].isError).toBe(true);
    expect(sent[0].content).toMatch(/interrupted/i);
    expect(fs.readFileSync(marker, "utf8").trim().split("\n")).toEqual(["ran"]);
  });
});
