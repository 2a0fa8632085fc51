/**
 * Benchmark (issue 18): listing 10,000 sessions of one project. Writes N small sessions (a header,
 * 10 exchanges and a result each) with the real store, then times `listSessions` cold (no cache: every
 * file read once), warm (nothing changed: no file opened) and after 100 sessions grew by one exchange,
 * beside a baseline that reads every file in full and parses every line (what listing did before).
 *
 *   npx tsc -p tsconfig.build.json && node bench/listing.mjs [sessions=10000]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJsonlSessionStore, createSessionRecorder, listSessions } from "../dist/session/index.js";

const N = Number(process.argv[2] ?? 10_000);
const home = mkdtempSync(join(tmpdir(), "goat-bench-listing-"));
const cwd = "/bench/project";
const usage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

async function exchange(recorder, i) {
  recorder.record({ type: "user", message: { role: "user", content: `question ${i}: what does this do?` } });
  recorder.record({
    type: "assistant",
    message: { role: "assistant", content: [{ type: "text", text: "It does things. ".repeat(20) }], usage },
  });
}

try {
  const store = createJsonlSessionStore({ home });
  for (let s = 0; s < N; s++) {
    const recorder = createSessionRecorder({ store, sessionId: `s-${s}` });
    recorder.record({ type: "header", cwd, version: "bench", createdAt: new Date().toISOString() });
    for (let i = 0; i < 10; i++) exchange(recorder, i);
    recorder.record({
      type: "result",
      subtype: "success",
      num_turns: 10,
      total_cost_usd: 0.01,
      usage,
      duration_ms: 1,
    });
    await recorder.flush();
  }
  await store.close();
  const dir = join(home, "projects", readdirSync(join(home, "projects"))[0]);

  const time = async (f) => {
    const t = performance.now();
    const out = await f();
    return { ms: performance.now() - t, out };
  };
  const baseline = await time(async () => {
    let messages = 0;
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(".jsonl")) continue;
      for (const line of readFileSync(join(dir, name), "utf8").split("\n")) {
        if (!line) continue;
        const e = JSON.parse(line);
        if (e.type === "user" || e.type === "assistant") messages++;
      }
    }
    return messages;
  });
  const cold = await time(() => listSessions({ cwd, store: createJsonlSessionStore({ home }) }));
  const warm = await time(() => listSessions({ cwd, store: createJsonlSessionStore({ home }) }));
  const grower = createJsonlSessionStore({ home });
  for (let s = 0; s < 100; s++) {
    const recorder = createSessionRecorder({ store: grower, sessionId: `s-${s}`, parentUuid: null });
    exchange(recorder, 99);
    await recorder.flush();
  }
  await grower.close();
  const grown = await time(() => listSessions({ cwd, store: createJsonlSessionStore({ home }) }));
  if (cold.out.length !== N || warm.out.length !== N || grown.out.length !== N)
    throw new Error("bad listing");
  if (grown.out.filter((i) => i.messageCount === 22).length !== 100) throw new Error("growth not seen");
  const result = {
    bench: "listing",
    sessions: N,
    baselineMs: baseline.ms,
    coldMs: cold.ms,
    warmMs: warm.ms,
    after100GrewMs: grown.ms,
    warmVsBaseline: warm.ms / baseline.ms,
  };
  console.log(
    `${N} sessions: read-everything baseline ${baseline.ms.toFixed(0)} ms; listSessions cold ${cold.ms.toFixed(0)} ms, warm ${warm.ms.toFixed(0)} ms, after 100 grew ${grown.ms.toFixed(0)} ms`,
  );
  console.log(JSON.stringify(result));
} finally {
  rmSync(home, { recursive: true, force: true });
}
