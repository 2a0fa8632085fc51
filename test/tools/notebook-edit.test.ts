/** NotebookEdit through query(): replace, insert and delete cells; acceptEdits allows it in scope. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions, tempDir, toolResultsSent } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

const notebook = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { cell_type: "markdown", id: "intro", metadata: {}, source: "# Title" },
    { cell_type: "code", id: "calc", metadata: {}, source: "1+1", execution_count: 3, outputs: [{ x: 1 }] },
  ],
};

describe("NotebookEdit", () => {
  it("replaces, inserts and deletes cells in acceptEdits mode without asking", async () => {
    const cwd = tempDir("goat-nb-");
    const file = path.join(cwd, "a.ipynb");
    fs.writeFileSync(file, JSON.stringify(notebook));
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: file }, id: "r" }]),
      reply.toolCalls([
        {
          name: "NotebookEdit",
          input: { notebook_path: file, cell_id: "calc", new_source: "2+2" },
          id: "e1",
        },
      ]),
      reply.toolCalls([
        {
          name: "NotebookEdit",
          input: {
            notebook_path: file,
            cell_id: "intro",
            new_source: "x = 1",
            cell_type: "code",
            edit_mode: "insert",
          },
          id: "e2",
        },
      ]),
      reply.toolCalls([
        {
          name: "NotebookEdit",
          input: { notebook_path: file, cell_id: "cell-0", new_source: "", edit_mode: "delete" },
          id: "e3",
        },
      ]),
      reply.toolCalls([
        { name: "NotebookEdit", input: { notebook_path: file, cell_id: "nope", new_source: "" }, id: "e4" },
      ]),
      reply.text("ok"),
    );
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Read", "NotebookEdit"],
          permissionMode: "acceptEdits",
        }),
      }),
    );
    const nb = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(nb.cells.map((c: any) => c.source)).toEqual(["x = 1", "2+2"]);
    expect(nb.cells[1]).toMatchObject({ id: "calc", execution_count: null, outputs: [] });
    expect(typeof nb.cells[0].id).toBe("string");
    const last = toolResultsSent(mock.requests[5].body).at(-1)!;
    expect(last.isError).toBe(true);
    expect(last.content).toMatch(/No cell with id "nope"/);
  });

  it("refuses a notebook not read first, and asks in default mode", async () => {
    const cwd = tempDir("goat-nb-");
    const file = path.join(cwd, "b.ipynb");
    fs.writeFileSync(file, JSON.stringify(notebook));
    mock.enqueue(
      reply.toolCalls([
        { name: "NotebookEdit", input: { notebook_path: file, cell_id: "calc", new_source: "9" }, id: "e1" },
      ]),
      reply.toolCalls([
        { name: "NotebookEdit", input: { notebook_path: file, cell_id: "calc", new_source: "9" }, id: "e2" },
      ]),
      reply.text("ok"),
    );
    let asked = 0;
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "openai", {
          cwd,
          tools: ["NotebookEdit"],
          permissionMode: "default",
          canUseTool: async (_t, input) => {
            asked++;
            return asked === 1
              ? { behavior: "deny", message: "no" }
              : { behavior: "allow", updatedInput: input };
          },
        }),
      }),
    );
    expect(asked).toBe(2);
    expect(toolResultsSent(mock.requests[2].body).at(-1)!.content).toMatch(/[Rr]ead/);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).cells[1].source).toBe("1+1");
  });
});
