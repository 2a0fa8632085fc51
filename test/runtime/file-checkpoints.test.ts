import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createAsyncQueue } from "../../src/sdk/async-queue.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { reply } from "../support/mock-provider.js";
import { collect, resultOf, scriptedOptions, tempDir } from "./helpers.js";

// The model is scripted in memory: what is tested is the files on disk, not the wire.
let model: ScriptedModel;
let cwd: string;
beforeEach(() => {
  model = scriptedModel();
  cwd = tempDir("goat-checkpoints-");
});

const file = (name: string) => path.join(cwd, name);
const read = (name: string) => (fs.existsSync(file(name)) ? fs.readFileSync(file(name), "utf8") : null);

/** Runs a multi-turn query, one prompt (with the given uuid) after each result. */
async function session(
  prompts: Array<{ uuid?: string; text: string }>,
  extra: Record<string, unknown> = {},
  afterEach?: (q: ReturnType<typeof query>, index: number) => Promise<void>,
) {
  const input = createAsyncQueue<SDKUserMessageInput>();
  const q = query({
    prompt: input,
    options: scriptedOptions(model, { cwd, tools: ["Read", "Write", "Edit"], ...extra }),
  });
  const send = (i: number) =>
    input.push({ type: "user", uuid: prompts[i].uuid, message: { role: "user", content: prompts[i].text } });
  send(0);
  const messages: SDKMessage[] = [];
  let done = 0;
  for await (const m of q) {
    messages.push(m);
    if (m.type !== "result") continue;
    await afterEach?.(q, done);
    done++;
    if (done < prompts.length) send(done);
    else input.close();
  }
  return { q, messages };
}

describe("enableFileCheckpointing and rewindFiles", () => {
  it("puts the files Write and Edit changed back as they were at each user message", async () => {
    fs.writeFileSync(file("a.txt"), "alpha\n");
    model.enqueue(
      // First message: read a.txt, edit it, create new.txt.
      reply.toolCalls([{ name: "Read", input: { file_path: file("a.txt") } }]),
      reply.toolCalls([
        { name: "Edit", input: { file_path: file("a.txt"), old_string: "alpha", new_string: "beta" } },
        { name: "Write", input: { file_path: file("new.txt"), content: "one\n" } },
      ]),
      reply.text("first done"),
      // Second message: change new.txt again.
      reply.toolCalls([{ name: "Write", input: { file_path: file("new.txt"), content: "two\nthree\n" } }]),
      reply.text("second done"),
    );
    const { q } = await session(
      [
        { uuid: "11111111-1111-4111-8111-111111111111", text: "first" },
        { uuid: "22222222-2222-4222-8222-222222222222", text: "second" },
      ],
      { enableFileCheckpointing: true },
    );
    expect(read("a.txt")).toBe("beta\n");
    expect(read("new.txt")).toBe("two\nthree\n");

    // A dry run says what would change and touches nothing.
    const preview = await q.rewindFiles("22222222-2222-4222-8222-222222222222", { dryRun: true });
    expect(preview).toEqual({
      canRewind: true,
      filesChanged: [file("new.txt")],
      insertions: 1,
      deletions: 2,
      skippedLinks: 0,
    });
    expect(read("new.txt")).toBe("two\nthree\n");

    const second = await q.rewindFiles("22222222-2222-4222-8222-222222222222");
    expect(second.filesChanged).toEqual([file("new.txt")]);
    expect(read("new.txt")).toBe("one\n");
    expect(read("a.txt")).toBe("beta\n");

    const first = await q.rewindFiles("11111111-1111-4111-8111-111111111111");
    expect(first.filesChanged?.sort()).toEqual([file("a.txt"), file("new.txt")].sort());
    expect(read("a.txt")).toBe("alpha\n");
    // new.txt did not exist when the first message arrived.
    expect(read("new.txt")).toBeNull();
  });

  it("puts back a notebook NotebookEdit changed", async () => {
    const notebook = {
      cells: [
        { cell_type: "code", id: "calc", metadata: {}, source: ["1+1"], outputs: [], execution_count: null },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    };
    const original = JSON.stringify(notebook, null, 1);
    fs.writeFileSync(file("a.ipynb"), original);
    model.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: file("a.ipynb") } }]),
      reply.toolCalls([
        {
          name: "NotebookEdit",
          input: { notebook_path: file("a.ipynb"), cell_id: "calc", new_source: "2+2" },
        },
      ]),
      reply.text("edited"),
    );
    const uuid = "33333333-3333-4333-8333-333333333333";
    const { q } = await session([{ uuid, text: "edit the notebook" }], {
      enableFileCheckpointing: true,
      tools: ["Read", "NotebookEdit"],
    });
    expect(read("a.ipynb")).toContain("2+2");
    const rewound = await q.rewindFiles(uuid);
    expect(rewound).toMatchObject({ canRewind: true, filesChanged: [file("a.ipynb")] });
    expect(read("a.ipynb")).toBe(original);
  });

  it("a string prompt's uuid is on its result, and rewinding to it works", async () => {
    model.enqueue(
      reply.toolCalls([{ name: "Write", input: { file_path: file("made.txt"), content: "x" } }]),
      reply.text("ok"),
    );
    const q = query({
      prompt: "make a file",
      options: scriptedOptions(model, { cwd, tools: ["Write"], enableFileCheckpointing: true }),
    });
    const result = resultOf(await collect(q));
    expect(result.user_message_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(read("made.txt")).toBe("x");
    expect((await q.rewindFiles(result.user_message_uuid!)).filesChanged).toEqual([file("made.txt")]);
    expect(read("made.txt")).toBeNull();
  });

  it("an unknown message id, or checkpoints left off, give canRewind false with the reason", async () => {
    model.enqueue(reply.text("ok"), reply.text("ok"));
    const { q } = await session([{ uuid: "33333333-3333-4333-8333-333333333333", text: "hi" }], {
      enableFileCheckpointing: true,
    });
    expect(await q.rewindFiles("not-a-message")).toEqual({
      canRewind: false,
      error:
        "No file checkpoint for user message not-a-message. Checkpoints exist for: 33333333-3333-4333-8333-333333333333.",
    });
    const off = await session([{ text: "hi" }]);
    expect(await off.q.rewindFiles("33333333-3333-4333-8333-333333333333")).toEqual({
      canRewind: false,
      error: "File checkpointing is off: pass enableFileCheckpointing: true to query() to rewind files.",
    });
  });

  it("leaves alone a path where a link now stands, and counts it", async () => {
    model.enqueue(
      reply.toolCalls([{ name: "Write", input: { file_path: file("f.txt"), content: "v1" } }]),
      reply.text("ok"),
    );
    const { q, messages } = await session([{ uuid: "44444444-4444-4444-8444-444444444444", text: "go" }], {
      enableFileCheckpointing: true,
    });
    expect(resultOf(messages).subtype).toBe("success");
    fs.rmSync(file("f.txt"));
    fs.writeFileSync(file("elsewhere.txt"), "keep me");
    fs.symlinkSync(file("elsewhere.txt"), file("f.txt"));
    const result = await q.rewindFiles("44444444-4444-4444-8444-444444444444");
    expect(result).toMatchObject({ canRewind: true, filesChanged: [], skippedLinks: 1 });
    expect(fs.readFileSync(file("elsewhere.txt"), "utf8")).toBe("keep me");
  });
});
