/**
 * Benchmark (issue 18): listing 10,000 sessions of one project. Writes N small sessions (a header,
 * 10 exchanges and a result each) with the real store, then times `listSessions`:
 * - written: the first listing after the store wrote them (the store keeps the listing index as it
 *   writes, so no transcript is opened): what a user sees;
 * - cold: the index deleted, every transcript read once (only the lines that matter parsed);
 * - warm: nothing changed since the last listing (no transcript opened);
 * - after 100 sessions grew by one exchange through a store that did not load them (so it keeps no
 *   record for them): the growth read from each record's offset;
 * beside a baseline that reads every file in full and parses every line (what listing did before),
 * measured in the same run. Goal: under 200 ms for 10,000 sessions, never reading whole files.
 *
 *   npx tsc -p tsconfig.build.json && node bench/listing.mjs [sessions=10000]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import os, { tmpdir } from "node:os";
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

  // Wall and CPU time: on a loaded machine the process waits for a core, and CPU time says more.
  const time = async (f) => {
    const c = process.cpuUsage();
    const t = performance.now();
    const out = await f();
    const cpu = process.cpuUsage(c);
    return { ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000, out };
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
  const list = () => listSessions({ cwd, store: createJsonlSessionStore({ home }) });
  const written = await time(list);
  unlinkSync(join(dir, ".listing-index"));
  const cold = await time(list);
  const warm = await time(list);
  const grower = createJsonlSessionStore({ home });
  for (let s = 0; s < 100; s++) {
    const recorder = createSessionRecorder({ store: grower, sessionId: `s-${s}`, parentUuid: null });
    exchange(recorder, 99);
    await recorder.flush();
  }
  await grower.close();
  const grown = await time(() => listSessions({ cwd, store: createJsonlSessionStore({ home }) }));
  if ([written, cold, warm, grown].some((t) => t.out.length !== N)) throw new Error("bad listing");
  if (cold.out.some((i) => i.messageCount !== 20 || i.firstPrompt === ""))
    throw new Error("bad cold listing");
  if (grown.out.filter((i) => i.messageCount === 22).length !== 100) throw new Error("growth not seen");
  const result = {
    bench: "listing",
    sessions: N,
    baselineMs: baseline.ms,
    writtenMs: written.ms,
    coldMs: cold.ms,
    warmMs: warm.ms,
    after100GrewMs: grown.ms,
    cpuMs: {
      baseline: baseline.cpuMs,
      written: written.cpuMs,
      cold: cold.cpuMs,
      warm: warm.cpuMs,
      after100Grew: grown.cpuMs,
    },
    writtenVsBaseline: written.ms / baseline.ms,
    coldVsBaseline: cold.ms / baseline.ms,
    warmVsBaseline: warm.ms / baseline.ms,
    coldVsBaselineCpu: cold.cpuMs / baseline.cpuMs,
    writtenVsBaselineCpu: written.cpuMs / baseline.cpuMs,
  };
  console.log(
    `${N} sessions: read-everything baseline ${baseline.ms.toFixed(0)} ms; listSessions after writing ${written.ms.toFixed(0)} ms, cold (index lost) ${cold.ms.toFixed(0)} ms, warm ${warm.ms.toFixed(0)} ms, after 100 grew ${grown.ms.toFixed(0)} ms`,
  );
  console.log(
    `CPU: baseline ${baseline.cpuMs.toFixed(0)} ms; after writing ${written.cpuMs.toFixed(0)}, cold ${cold.cpuMs.toFixed(0)}, warm ${warm.cpuMs.toFixed(0)}, after 100 grew ${grown.cpuMs.toFixed(0)} ms (load average ${os.loadavg()[0].toFixed(1)})`,
  );
  console.log(JSON.stringify(result));
} finally {
  rmSync(home, { recursive: true, force: true });
}
