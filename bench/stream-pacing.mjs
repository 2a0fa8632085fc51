/**
 * Benchmark: what backpressure on the SDK message stream costs and saves (built dist/).
 * 1. Cost for a fast reader: iterating a model stream of N events through `pacedModelCaller` against
 *    iterating it directly, same run. Target: within 1.1x.
 * 2. Saving for a slow reader: a query() streaming N deltas with `includePartialMessages` to a host
 *    that reads nothing for a second, then everything: the messages waiting at the pause (bounded by
 *    the high-water mark, instead of all N) and the heap growth at that moment.
 *
 *   npx tsc -p tsconfig.build.json && node bench/stream-pacing.mjs [events=200000]
 */
const N = Number(process.argv[2] ?? 200_000);
const { readerPace, HIGH_WATER } = await import("../dist/sdk/backpressure.js");
const { pacedModelCaller } = await import("../dist/runtime/paced-model-caller.js");
const { createAsyncQueue } = await import("../dist/sdk/async-queue.js");
const { query } = await import("../dist/sdk/query.js");

function events(n) {
  return (async function* () {
    yield { type: "message_start", model: "bench/m" };
    yield { type: "text_start", index: 0 };
    for (let i = 0; i < n; i++) yield { type: "text_delta", index: 0, delta: "x" };
    yield { type: "text_end", index: 0, text: "x" };
    yield {
      type: "message_end",
      message: { role: "assistant", content: [{ type: "text", text: "x" }], stop_reason: "end_turn" },
    };
  })();
}

async function drain(stream) {
  let count = 0;
  for await (const _ of stream) count++;
  return count;
}

async function timeIt(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

// 1. Per-event cost for a reader that keeps up (the queue stays empty).
const queue = createAsyncQueue();
const paced = pacedModelCaller(() => events(N), readerPace(queue));
const direct = [];
const wrapped = [];
for (let round = 0; round < 5; round++) {
  direct.push(await timeIt(() => drain(events(N))));
  wrapped.push(await timeIt(() => drain(paced("m", {}, () => {}))));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const directMs = median(direct.slice(1));
const wrappedMs = median(wrapped.slice(1));

// 2. A slow reader: how much waits at the pause.
const provider = { name: "bench", stream: () => events(N) };
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const q = query({
  prompt: "x",
  options: { model: "bench/m", provider, includePartialMessages: true, persistSession: false, tools: [] },
});
await q.next();
await new Promise((resolve) => setTimeout(resolve, 1000));
const heapAtPause = process.memoryUsage().heapUsed;
let waiting = 0;
for await (const m of q) {
  waiting++;
  if (m.type === "result") break;
}

console.log(`fast reader, ${N} events: direct ${directMs.toFixed(1)} ms, paced ${wrappedMs.toFixed(1)} ms`);
console.log(
  `slow reader: heap +${((heapAtPause - heapBefore) / 1e6).toFixed(1)} MB at the pause (high-water mark ${HIGH_WATER} messages); ${waiting} messages read after it`,
);
console.log(
  JSON.stringify({
    bench: "stream-pacing",
    events: N,
    directMs: Math.round(directMs * 10) / 10,
    pacedMs: Math.round(wrappedMs * 10) / 10,
    ratio: Math.round((wrappedMs / directMs) * 100) / 100,
    heapAtPauseMB: Math.round(((heapAtPause - heapBefore) / 1e6) * 10) / 10,
    highWater: HIGH_WATER,
  }),
);
