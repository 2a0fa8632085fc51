/**
 * A subagent draws from its parent's limits: the parent's maxTurns counts every model call of the run,
 * its subagents' included; the parent's maxBudgetUsd is shared; the parent's stopWhen stops the
 * children; and at most 10 Task calls of one answer run. On the old code a child ignored all of them
 * (27 model calls under a parent limit of 3; 30 Task calls in one answer made 90 child calls).
 */
import { describe, expect, it } from "vitest";
import type { Message, ModelRequest } from "../../src/llm/types.js";
import { stepCountIs } from "../../src/loop/stop-conditions.js";
import { MAX_TASKS_PER_ANSWER } from "../../src/runtime/subagents.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { reply } from "../support/mock-provider.js";
import { collect, echoTool, resultOf } from "./helpers.js";

const CHILD_PROMPT = "You are the worker subagent.";
const agents = { worker: { description: "Does one piece of work", prompt: CHILD_PROMPT } };

/** True for a request the subagent made (its system prompt is the general-purpose agent's). */
function isChild(request: ModelRequest): boolean {
  return JSON.stringify(request.system).includes(CHILD_PROMPT);
}

function task(id: string) {
  return { name: "Task", id, input: { description: "d", prompt: "work", subagent_type: "worker" } };
}

/** A model whose parent calls always start `tasksPerAnswer` subagents and whose children never stop calling echo. */
function greedyModel(tasksPerAnswer: number, usage = { input: 1000, output: 0 }): ScriptedModel {
  const model = scriptedModel();
  let n = 0;
  const step = (request: ModelRequest) => {
    n++;
    if (isChild(request)) return reply.toolCalls([{ name: "echo", input: { text: "again" } }], { usage });
    return reply.toolCalls(
      Array.from({ length: tasksPerAnswer }, (_, i) => task(`task_${n}_${i}`)),
      { usage },
    );
  };
  model.enqueue(...Array.from({ length: 200 }, () => step));
  return model;
}

function options(model: ScriptedModel, extra: QueryOptions): QueryOptions {
  return {
    model: model.id,
    provider: model,
    modelPricing: { [model.id]: { input: 1, output: 1 } },
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    persistSession: false,
    permissionMode: "bypassPermissions",
    tools: [echoTool],
    agents,
    ...extra,
  };
}

/** The tool results of the request's last user message. */
function toolResultsOf(request: ModelRequest): Array<{ id: string; text: string; isError: boolean }> {
  const last = request.messages.filter((m: Message) => m.role === "user").at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) =>
    b.type === "tool_result"
      ? [
          {
            id: b.tool_use_id,
            text: typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text).join(""),
            isError: b.isError === true,
          },
        ]
      : [],
  );
}

describe("a subagent draws from its parent's limits", () => {
  it("maxTurns 3 with a model that keeps calling Task: 3 model calls in all", async () => {
    const model = greedyModel(1);
    const messages = await collect(query({ prompt: "go", options: options(model, { maxTurns: 3 }) }));
    expect(model.requests.length).toBe(3);
    expect(resultOf(messages).subtype).toBe("error_max_turns");
  });

  it("maxTurns 3 with three subagents side by side: still 3 model calls in all", async () => {
    const model = greedyModel(3);
    const messages = await collect(query({ prompt: "go", options: options(model, { maxTurns: 3 }) }));
    expect(model.requests.length).toBe(3);
    expect(resultOf(messages).subtype).toBe("error_max_turns");
  });

  it("maxBudgetUsd is shared: three children stop once the parent's budget is spent", async () => {
    // Each call costs $0.001 (1,000 input tokens at $1 per million); the budget is five calls.
    const model = greedyModel(3);
    const budget = 0.005;
    const messages = await collect(
      query({ prompt: "go", options: options(model, { maxBudgetUsd: budget }) }),
    );
    const result = resultOf(messages);
    expect(result.subtype).toBe("error_max_budget_usd");
    // Each of the three children may have one call in flight when the budget runs out, no more.
    expect(model.requests.length).toBeLessThanOrEqual(5 + 3);
    expect(result.total_cost_usd).toBeLessThanOrEqual(budget + 3 * 0.001 + 1e-9);
  });

  it("the parent's stopWhen stops the child, counting the child's steps after the parent's", async () => {
    const model = greedyModel(1);
    const messages = await collect(
      query({ prompt: "go", options: options(model, { stopWhen: stepCountIs(3) }) }),
    );
    expect(model.requests.length).toBe(3);
    expect(resultOf(messages).subtype).toBe("success");
  });
});

describe("Task calls per answer", () => {
  it("of 30 Task calls in one answer, only the first 10 run; every other call is answered with an error", async () => {
    const model = scriptedModel();
    let children = 0;
    model.enqueue(
      reply.toolCalls(Array.from({ length: 30 }, (_, i) => task(`t${i}`))),
      ...Array.from({ length: MAX_TASKS_PER_ANSWER }, () => () => {
        children++;
        return reply.text("child done");
      }),
      reply.text("all done"),
    );
    const messages = await collect(query({ prompt: "go", options: options(model, {}) }));
    expect(resultOf(messages).result).toBe("all done");
    expect(MAX_TASKS_PER_ANSWER).toBe(10);
    expect(children).toBe(10);
    expect(model.requests.length).toBe(1 + 10 + 1);
    const results = toolResultsOf(model.requests.at(-1)!);
    expect(results.map((r) => r.id)).toEqual(Array.from({ length: 30 }, (_, i) => `t${i}`));
    expect(results.slice(0, 10).every((r) => !r.isError && r.text === "child done")).toBe(true);
    for (const r of results.slice(10)) {
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^Not run: at most 10 Task calls of one answer run/);
    }
  });
});
