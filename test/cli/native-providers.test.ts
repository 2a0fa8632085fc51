/**
 * `goat -p --model <provider>/<model>` runs a tool loop over each native wire Goat speaks besides
 * Anthropic's, against the testing kit's mock of that wire: the model reads a file, gets its content
 * back in its own wire's tool-result form, and answers.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-native");

/** The tool results the second request carried, in the wire's own shape, as text. */
const cases: Array<{
  model: string;
  env: () => Record<string, string>;
  format: string;
  results: (body: any) => string;
}> = [
  {
    model: "openai-responses/gpt-5",
    env: () => ({ OPENAI_BASE_URL: fx.mock.openaiBaseURL, OPENAI_API_KEY: "k" }),
    format: "openai-responses",
    results: (body) => JSON.stringify(body.input.filter((i: any) => i.type === "function_call_output")),
  },
  {
    model: "openai/o4-mini",
    // A mock is not OpenAI's API, where reasoning models take Responses on their own: forced here.
    env: () => ({
      OPENAI_BASE_URL: fx.mock.openaiBaseURL,
      OPENAI_API_KEY: "k",
      GOAT_OPENAI_WIRE: "responses",
    }),
    format: "openai-responses",
    results: (body) => JSON.stringify(body.input.filter((i: any) => i.type === "function_call_output")),
  },
  {
    model: "gemini/gemini-2.5-flash",
    env: () => ({ GOOGLE_GEMINI_BASE_URL: fx.mock.geminiBaseURL, GEMINI_API_KEY: "k" }),
    format: "gemini",
    results: (body) =>
      JSON.stringify(body.contents.flatMap((c: any) => c.parts).filter((p: any) => p.functionResponse)),
  },
  {
    model: "azure/gpt-4o",
    env: () => ({ AZURE_OPENAI_ENDPOINT: fx.mock.geminiBaseURL, AZURE_OPENAI_API_KEY: "k" }),
    format: "openai",
    results: (body) => JSON.stringify(body.messages.filter((m: any) => m.role === "tool")),
  },
];

describe("goat -p over the native wires", () => {
  it.each(cases)("$model runs a tool loop", async ({ model, env, format, results }) => {
    const file = join(fx.work.path, "note.txt");
    writeFileSync(file, "the secret word is marmalade\n");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: file }, id: "call_read1" }], { text: "Reading." }),
      reply.text("The word is marmalade."),
    );
    const r = await runCli(
      ["-p", "what is the word in note.txt?", "--model", model, "--output-format", "json"],
      {
        env: { ...fx.env, ...env() },
        cwd: fx.work.path,
      },
    );
    expect(r.stderr).toBe("");
    expect(jsonLines(r.stdout)[0]).toMatchObject({ subtype: "success", result: "The word is marmalade." });
    expect(fx.mock.requests.map((q) => q.format)).toEqual([format, format]);
    expect(results(fx.mock.requests[1].body)).toContain("marmalade");
  });
});

describe("goat -p without the key of a native provider", () => {
  it("names the variables to set, before any call", async () => {
    const r = await runCli(["-p", "hi", "--model", "gemini/gemini-2.5-pro"], {
      env: fx.env,
      cwd: fx.work.path,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("GEMINI_API_KEY");
    expect(fx.mock.requests).toHaveLength(0);
  });

  it("Azure names its key only: its provider always sends one, so an endpoint is no keyless gateway", async () => {
    const endpoints: Array<Record<string, string>> = [{}, { AZURE_OPENAI_ENDPOINT: fx.mock.geminiBaseURL }];
    for (const env of endpoints) {
      const r = await runCli(["-p", "hi", "--model", "azure/gpt-4o"], {
        env: { ...fx.env, ...env },
        cwd: fx.work.path,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe("goat: No API key configured for azure/gpt-4o: set AZURE_OPENAI_API_KEY.\n");
    }
    expect(fx.mock.requests).toHaveLength(0);
  });
});

describe("goat -p with only GEMINI_API_KEY set", () => {
  it("defaults to a Gemini model", async () => {
    fx.mock.enqueue(reply.text("Hello from Gemini."));
    const env = { ...fx.env, GOOGLE_GEMINI_BASE_URL: fx.mock.geminiBaseURL, GEMINI_API_KEY: "k" };
    delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
    delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
    const r = await runCli(["-p", "hi"], { env, cwd: fx.work.path });
    expect(r.stdout).toBe("Hello from Gemini.\n");
    expect(fx.mock.requests[0].path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent");
  });
});
