/**
 * `goat -p` on Bedrock and Vertex: a tool loop against the mock's rendering of each cloud's wire,
 * chosen by `--model bedrock/…` / `vertex/…` or by Claude Code's switches (`CLAUDE_CODE_USE_BEDROCK=1`,
 * `CLAUDE_CODE_USE_VERTEX=1` with their base URL, project and skip-auth variables).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  rsaKeyPair,
  startTokenServer,
  type TokenServer,
  verifySigV4,
  writeServiceAccountKey,
} from "../llm/cloud-fixtures.js";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-cloud");
const SECRET = "cli-secret-key";
const keys = rsaKeyPair();
let tokens: TokenServer;
beforeAll(async () => {
  tokens = await startTokenServer(keys.publicKey);
});
afterAll(() => tokens.close());

/** Runs a Read tool loop: the model reads notes.txt, then answers; returns the CLI's result line. */
async function toolLoop(args: string[], env: Record<string, string>) {
  writeFileSync(join(fx.work.path, "notes.txt"), "the secret word is pelican\n");
  fx.mock.enqueue(
    reply.toolCalls([
      { name: "Read", input: { file_path: join(fx.work.path, "notes.txt") }, id: "toolu_r1" },
    ]),
    reply.text("The word is pelican."),
  );
  const r = await runCli(["-p", "what is the secret word?", "--output-format", "json", ...args], {
    env: { ...fx.env, ANTHROPIC_BASE_URL: "http://127.0.0.1:9", ...env },
    cwd: fx.work.path,
    timeoutMs: 30_000,
  });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const result = jsonLines(r.stdout).at(-1);
  expect(result).toMatchObject({ type: "result", subtype: "success", result: "The word is pelican." });
  expect(fx.mock.requests).toHaveLength(2);
  expect(JSON.stringify(fx.mock.requests[1].body)).toContain("the secret word is pelican");
  return fx.mock.requests;
}

const aws = { AWS_ACCESS_KEY_ID: "AKIDCLI", AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: "us-east-1" };

describe("goat -p on the clouds", () => {
  it("--model bedrock/claude-… runs a signed tool loop through InvokeModelWithResponseStream", async () => {
    const requests = await toolLoop(["--model", "bedrock/claude-sonnet-4-5"], {
      ...aws,
      ANTHROPIC_BEDROCK_BASE_URL: fx.mock.bedrockBaseURL,
    });
    for (const request of requests) {
      expect(request.path).toBe(
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
      );
      expect(verifySigV4(request, SECRET)).toBeUndefined();
    }
  });

  it("--model bedrock/<another vendor's model> runs the tool loop through ConverseStream", async () => {
    const requests = await toolLoop(["--model", "bedrock/meta.llama3-3-70b-instruct-v1:0"], {
      ...aws,
      ANTHROPIC_BEDROCK_BASE_URL: fx.mock.bedrockBaseURL,
    });
    expect(requests[0].format).toBe("bedrock-converse");
    expect(requests[1].body.messages.at(-1).content[0].toolResult.toolUseId).toBe("toolu_r1");
  });

  it("CLAUDE_CODE_USE_BEDROCK=1 with ANTHROPIC_MODEL and CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 goes to the gateway unsigned", async () => {
    const requests = await toolLoop([], {
      ANTHROPIC_API_KEY: "", // a Bedrock user has none: goat must not ask for it
      CLAUDE_CODE_USE_BEDROCK: "1",
      ANTHROPIC_MODEL: "claude-haiku-4-5",
      ANTHROPIC_BEDROCK_BASE_URL: fx.mock.bedrockBaseURL,
      CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1",
      AWS_REGION: "eu-west-1",
    });
    expect(requests[0].path).toBe(
      "/model/eu.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke-with-response-stream",
    );
    expect(requests[0].headers.authorization).toBeUndefined();
  });

  it("--model vertex/claude-… runs the tool loop with a service-account token", async () => {
    const keyFile = writeServiceAccountKey(fx.home.path, keys.privateKey, tokens.url, "cli-proj");
    const requests = await toolLoop(["--model", "vertex/claude-sonnet-4-5"], {
      ANTHROPIC_VERTEX_BASE_URL: fx.mock.vertexBaseURL,
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      CLOUD_ML_REGION: "europe-west1",
    });
    expect(requests[0].path).toBe(
      "/v1/projects/cli-proj/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
    );
    expect(requests[0].headers.authorization).toMatch(/^Bearer token-\d+$/);
    // One goat process, one token for both calls.
    expect(requests[1].headers.authorization).toBe(requests[0].headers.authorization);
  });

  it("CLAUDE_CODE_USE_VERTEX=1 with the project variable and CLAUDE_CODE_SKIP_VERTEX_AUTH=1 sends --model claude-sonnet-4-5 to Vertex, asking no Anthropic key", async () => {
    const requests = await toolLoop(["--model", "claude-sonnet-4-5"], {
      ANTHROPIC_API_KEY: "",
      CLAUDE_CODE_USE_VERTEX: "1",
      ANTHROPIC_VERTEX_BASE_URL: fx.mock.vertexBaseURL,
      ANTHROPIC_VERTEX_PROJECT_ID: "gw-proj",
      CLAUDE_CODE_SKIP_VERTEX_AUTH: "1",
    });
    expect(requests[0].path).toBe(
      "/v1/projects/gw-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
    );
    expect(requests[0].headers.authorization).toBeUndefined();
  });
});
