/**
 * The provider conformance suite: every scenario of ./scenarios.ts against every provider of
 * ./providers/, each through its own wire rendered by the testing kit's mock (a fresh one per test,
 * so a failing scenario leaves nothing queued for the next).
 */
import { afterEach, describe, it } from "vitest";
import type { Provider } from "../../../src/llm/types.js";
import { type MockProvider, startMockProvider } from "../../../src/testing/mock-provider.js";
import { descriptors } from "./providers/index.js";
import { scenarios } from "./scenarios.js";

const opened: Provider[] = [];
let mock: MockProvider | undefined;
afterEach(async () => {
  for (const p of opened.splice(0)) p.close?.();
  await mock?.close();
  mock = undefined;
});

describe.each(descriptors)("$name", (d) => {
  it.each(scenarios)("$name", async (scenario) => {
    const live = await startMockProvider();
    mock = live;
    await scenario.run({
      mock: live,
      d,
      make: (options) => {
        const provider = d.create(live.anthropicBaseURL, options);
        opened.push(provider);
        return provider;
      },
    });
    if (live.pending() > 0) throw new Error(`${live.pending()} scripted replies were not used`);
  });
});
