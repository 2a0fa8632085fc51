/**
 * Session store benchmark: appending 10,000 entries and loading a 10,000-message session, each beside
 * a raw-fs baseline measured in the same run. Loads run in fresh child processes so peak memory is
 * the load's own, LOAD_REPS times each, interleaved, reporting medians of wall and CPU time (on a
 * loaded machine one run says little). Imports the built code: run `npx tsc -p tsconfig.build.json`
 * first. Goal (issue 18): resume of a 10,000-message transcript under 100 ms.
 *
 *   node bench/session.mjs [loadReps=5]
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createJsonlSessionStore,
  createSessionRecorder,
  loadResumeState,
  makeEntry,
} from "../dist/session/index.js";

const N = 10_000;
const LOAD_REPS = Number(process.argv[2] === "--child" ? 1 : (process.argv[2] ?? 5));
const SELF = fileURLToPath(import.meta.url);
const LOAD_LABELS = {
  baseline: "readFileSync+split+parse (baseline)",
  storeLoad: "store.load, all entries",
  ours: "loadResumeState",
  baselineCompacted: "compacted, baseline",
  oursCompacted: "compacted, loadResumeState",
};

/** A realistic mix: prompts, replies of ~600 chars, tool calls and tool results of ~1.5 KB. */
function payloadAt(i) {
  const filler = "lorem ipsum dolor sit amet ".repeat(22);
  if (i % 4 === 0) return { type: "user", message: { role: "user", content: `question ${i}: ${filler}` } };
  if (i % 4 === 1) {
    return {
      type: "assistant",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `let me look ${filler}` },
          { type: "tool_use", id: `call_${i}`, name: "Read", input: { file_path: `/src/file${i}.ts` } },
        ],
        stop_reason: "tool_use",
        usage: {
          input_tokens: 1000,
          output_tokens: 50,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      },
    };
  }
  if (i % 4 === 2) {
    return {
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `call_${i - 1}`, content: filler.repeat(3) }],
      },
    };
  }
  return { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: filler }] } };
}

function header() {
  return {
    type: "header",
    cwd: "/bench/project",
    model: "anthropic/x",
    version: "bench",
    createdAt: new Date().toISOString(),
  };
}

/** Writes a session of N messages; with `boundaryAt`, a compaction boundary before message boundaryAt. */
async function writeSession(home, sessionId, boundaryAt) {
  const store = createJsonlSessionStore({ home });
  const recorder = createSessionRecorder({ store, sessionId });
  recorder.record(header());
  for (let i = 0; i < N; i++) {
    if (i === boundaryAt) {
      recorder.record({
        type: "compact_boundary",
        trigger: "auto",
        pre_tokens: 1e6,
        post_tokens: 2e4,
        summary: "s",
        kept_uuids: [],
      });
    }
    recorder.record(payloadAt(i));
  }
  await recorder.flush();
  const path = await store.pathOf(sessionId);
  await store.close();
  return path;
}

async function benchAppend(home) {
  const entries = [];
  let parent = null;
  for (let i = -1; i < N; i++) {
    const e = makeEntry(i < 0 ? header() : payloadAt(i), "append-raw", parent);
    parent = e.uuid;
    entries.push(e);
  }
  const rawPath = join(home, "raw.jsonl");
  // Baseline: the simplest correct writer, serializing each entry and appending it synchronously.
  let t = performance.now();
  for (const e of entries) appendFileSync(rawPath, `${JSON.stringify(e)}\n`);
  const baselineMs = performance.now() - t;

  // Ours as the loop uses it: each entry appended through the store, awaited one by one.
  const store = createJsonlSessionStore({ home });
  t = performance.now();
  for (const e of entries) await store.append("append-raw", [e]);
  const awaitedMs = performance.now() - t;
  await store.close();

  // Ours through the recorder without awaiting each (a fast producer): writes are merged.
  const store2 = createJsonlSessionStore({ home });
  const recorder = createSessionRecorder({ store: store2, sessionId: "append-rec" });
  t = performance.now();
  recorder.record(header());
  for (let i = 0; i < N; i++) recorder.record(payloadAt(i));
  await recorder.flush();
  const batchedMs = performance.now() - t;
  await store2.close();
  return { baselineMs, awaitedMs, batchedMs };
}

/** Runs one load in a fresh process and returns its figures. */
function loadInChild(mode, home, sessionId, path) {
  const out = execFileSync(process.execPath, ["--expose-gc", SELF, "--child", mode, home, sessionId, path], {
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").at(-1));
}

async function child([mode, home, sessionId, path]) {
  global.gc();
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const c0 = process.cpuUsage();
  const t = performance.now();
  let kept;
  if (mode === "baseline") {
    kept = readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } else if (mode === "store-load") {
    kept = await createJsonlSessionStore({ home }).load(sessionId);
  } else {
    const store = createJsonlSessionStore({ home, onWarning: (w) => console.error(w.message) });
    kept = await loadResumeState(sessionId, { store });
  }
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(c0);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  global.gc();
  const heapRetained = process.memoryUsage().heapUsed - heapBefore;
  const count = Array.isArray(kept) ? kept.length : kept.messages.length;
  console.log(
    JSON.stringify({
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssDeltaMB: (peakRss - rssBefore) / 2 ** 20,
      heapRetainedMB: heapRetained / 2 ** 20,
      count,
    }),
  );
}

async function main() {
  const home = mkdtempSync(join(tmpdir(), "goat-bench-session-"));
  try {
    const append = await benchAppend(home);
    const plainPath = await writeSession(home, "plain", -1);
    const compactedPath = await writeSession(home, "compacted", N - 1000);
    const cases = {
      baseline: ["baseline", "plain", plainPath],
      storeLoad: ["store-load", "plain", plainPath],
      ours: ["ours", "plain", plainPath],
      baselineCompacted: ["baseline", "compacted", compactedPath],
      oursCompacted: ["ours", "compacted", compactedPath],
    };
    const runs = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let r = 0; r < LOAD_REPS; r++)
      for (const [k, [mode, id, path]] of Object.entries(cases))
        runs[k].push(loadInChild(mode, home, id, path));
    const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
    const loads = Object.fromEntries(
      Object.entries(runs).map(([k, rs]) => [
        k,
        {
          ms: med(rs.map((x) => x.ms)),
          cpuMs: med(rs.map((x) => x.cpuMs)),
          peakRssDeltaMB: med(rs.map((x) => x.peakRssDeltaMB)),
          heapRetainedMB: med(rs.map((x) => x.heapRetainedMB)),
          count: rs[0].count,
        },
      ]),
    );
    const sizeMB = readFileSync(plainPath).length / 2 ** 20;
    const rate = (ms) => Math.round(N / (ms / 1000));
    const rows = [
      [
        "append 10k, stringify+appendFileSync (baseline)",
        append.baselineMs,
        `${rate(append.baselineMs)}/s`,
        "",
        "",
      ],
      ["append 10k, store.append awaited each", append.awaitedMs, `${rate(append.awaitedMs)}/s`, "", ""],
      ["append 10k, recorder not awaited (merged)", append.batchedMs, `${rate(append.batchedMs)}/s`, "", ""],
      ...Object.entries(loads).map(([k, v]) => [
        `load ${LOAD_LABELS[k]} (${v.count} kept)`,
        v.ms,
        `cpu ${v.cpuMs.toFixed(1)}`,
        v.peakRssDeltaMB.toFixed(1),
        v.heapRetainedMB.toFixed(1),
      ]),
    ];
    console.log(
      `session file: ${N} messages, ${sizeMB.toFixed(1)} MB; loads: medians of ${LOAD_REPS} fresh processes (load average ${loadavg()[0].toFixed(1)})`,
    );
    console.log(
      `${"case".padEnd(58)}${"ms".padStart(9)}${"rate".padStart(12)}${"peakRSS+MB".padStart(12)}${"heapKeptMB".padStart(12)}`,
    );
    for (const [name, ms, r, rss, heap] of rows) {
      console.log(
        `${name.padEnd(58)}${ms.toFixed(1).padStart(9)}${r.padStart(12)}${rss.padStart(12)}${heap.padStart(12)}`,
      );
    }
    const result = {
      bench: "session",
      messages: N,
      fileMB: sizeMB,
      append,
      appendRatioAwaited: append.awaitedMs / append.baselineMs,
      appendRatioMerged: append.batchedMs / append.baselineMs,
      loads,
      loadReps: LOAD_REPS,
      loadTimeRatio: loads.ours.ms / loads.baseline.ms,
      loadCpuRatio: loads.ours.cpuMs / loads.baseline.cpuMs,
      loadPeakRssRatio: loads.ours.peakRssDeltaMB / loads.baseline.peakRssDeltaMB,
      compactedLoadHeapRatio: loads.oursCompacted.heapRetainedMB / loads.baselineCompacted.heapRetainedMB,
    };
    console.log(JSON.stringify(result));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") await child(process.argv.slice(3));
else await main();
