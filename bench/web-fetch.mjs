/**
 * Benchmark: what WebFetch costs (built dist/), each figure against a baseline measured in the same run.
 * 1. Loading: in a fresh process with the tool contract and the provider transport loaded, importing the web tools' modules
 *    against importing TodoWrite's; then the first HTML conversion (which loads turndown) against a
 *    later one in the same process: the converter's price, paid once per process, only when an HTML
 *    page is fetched.
 * 2. A 1 MB HTML page from a local server: WebFetch (fetch, guard, markdown) against a bare
 *    `http.get` reading the same bytes.
 * 3. A 50 MB page: WebFetch's peak RSS growth (it stops at the 2 MiB cap) against reading the whole
 *    page into memory with `http.get`, each in its own process.
 * 4. Per turn: the characters WebFetch's definition adds to every request (it is on by default).
 *
 *   npx tsc -p tsconfig.build.json && node bench/web-fetch.mjs [runs=7]
 */
import { spawn, spawnSync } from "node:child_process";
import http from "node:http";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./support/measure.mjs";

const RUNS = Number(process.argv[2] ?? 7);
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const url = (file) => pathToFileURL(`${dist}${file}`).href;

/** Runs `code` in a fresh node process; resolves with the number it prints. */
function child(code) {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout.trim().split("\n").at(-1));
}

/** The same, without blocking this process (whose server the child talks to). */
function childAsync(code) {
  return new Promise((resolve, reject) => {
    const run = spawn(process.execPath, ["--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    run.stdout.on("data", (d) => {
      out += d;
    });
    run.stderr.on("data", (d) => {
      err += d;
    });
    run.on("exit", (status) =>
      status === 0 ? resolve(Number(out.trim().split("\n").at(-1))) : reject(new Error(err)),
    );
  });
}

// 1. Loading: with the tool contract (zod) and the provider transport already loaded, as in any
// session, the web tools' modules against the TodoWrite module, another small built-in tool.
// turndown is not among them: it loads on first use.
// The provider transport (node:http, node:https) is loaded by every session already.
const timed = (body) =>
  `await import(${JSON.stringify(url("tools/define-tool.js"))}); await import(${JSON.stringify(url("llm/http.js"))}); const t0 = performance.now(); ${body}; console.log(performance.now() - t0);`;
const baseline = [];
const webModules = [];
for (let i = 0; i < RUNS; i++) {
  baseline.push(child(timed(`await import(${JSON.stringify(url("tools/todo-write.js"))})`)));
  webModules.push(
    child(
      timed(
        `await import(${JSON.stringify(url("tools/web/web-fetch.js"))}); await import(${JSON.stringify(url("tools/web/web-search.js"))})`,
      ),
    ),
  );
}
const html = `<html><body>${"<h2>Title</h2><p>Some <b>text</b> and a <a href='/x'>link</a>.</p>".repeat(200)}</body></html>`;
// The first call loads turndown; the later ones (median of 5, same process) only convert.
const conversions = child(`
  const { htmlToMarkdown } = await import(${JSON.stringify(url("tools/web/html-to-markdown.js"))});
  const html = ${JSON.stringify(html)};
  await htmlToMarkdown(html);
  const later = [];
  for (let i = 0; i < 5; i++) { const t = performance.now(); await htmlToMarkdown(html); later.push(performance.now() - t); }
  console.log(later.sort((a, b) => a - b)[2]);
`);
const firstConversion = median(
  Array.from({ length: RUNS }, () =>
    child(`
      const { htmlToMarkdown } = await import(${JSON.stringify(url("tools/web/html-to-markdown.js"))});
      const t = performance.now(); await htmlToMarkdown(${JSON.stringify(html)}); console.log(performance.now() - t);
    `),
  ),
);

// 2. A 1 MB page.
const page = Buffer.from(
  `<html><body>${"<div><h3>Entry</h3><p>Lorem <i>ipsum</i> dolor sit amet, <a href='/p'>link</a>.</p><ul><li>a</li><li>b</li></ul></div>".repeat(8_000)}</body></html>`,
).subarray(0, 1024 * 1024);
const huge = Buffer.from(`<p>${"goat ".repeat(13_000)}</p>\n`);
const server = http.createServer((req, res) => {
  if (req.url === "/huge") {
    res.writeHead(200, { "content-type": "text/html" });
    let sent = 0;
    const pump = () => {
      while (sent < 50 * 1024 * 1024 && !res.destroyed) {
        sent += huge.length;
        if (!res.write(huge)) return res.once("drain", pump);
      }
      res.end();
    };
    pump();
    return;
  }
  res.writeHead(200, { "content-type": "text/html" }).end(page);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const { createWebFetchTool } = await import(url("tools/web/web-fetch.js"));
const tool = createWebFetchTool({ hostAllowed: () => true });
const ctx = {
  signal: new AbortController().signal,
  cwd: process.cwd(),
  sessionId: "bench",
  toolUseId: "b",
  state: { readFiles: new Map(), backgroundShells: new Map(), cleanups: [] },
  onUpdate() {},
};
const bareGet = (path) =>
  new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks).length));
      })
      .on("error", reject);
  });
const time = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
await tool.execute({ url: `${base}/page`, prompt: "p" }, ctx); // warm-up: loads turndown
const getMs = [];
const fetchMs = [];
for (let i = 0; i < RUNS; i++) {
  getMs.push(await time(() => bareGet("/page")));
  fetchMs.push(await time(() => tool.execute({ url: `${base}/page`, prompt: "p" }, ctx)));
}

// 3. Peak memory for a 50 MB page, each reader in its own process.
const rssGrowth = (body) =>
  childAsync(`
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
    ${body}
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log((peak - before) / 1024 / 1024);
  `);
const fetchRss = await rssGrowth(`
  const { createWebFetchTool } = await import(${JSON.stringify(url("tools/web/web-fetch.js"))});
  const r = await createWebFetchTool({ hostAllowed: () => true }).execute({ url: "${base}/huge", prompt: "p" }, {
    signal: new AbortController().signal, cwd: process.cwd(), sessionId: "b", toolUseId: "b",
    state: { readFiles: new Map(), backgroundShells: new Map(), cleanups: [] }, onUpdate() {} });
  if (!r.details.truncated) throw new Error("not cut");
`);
const getRss = await rssGrowth(`
  const http = await import("node:http");
  await new Promise((resolve) => http.get("${base}/huge", (res) => {
    const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve(Buffer.concat(chunks)));
  }));
`);
server.close();

// 4. Per turn: WebFetch's definition in every request.
const definition = JSON.stringify({
  name: tool.name,
  description: tool.description,
  input_schema: tool.jsonSchema,
});

const summary = {
  bench: "web-fetch",
  load: {
    todoWriteModuleMs: +median(baseline).toFixed(1),
    webToolModulesMs: +median(webModules).toFixed(1),
    webToolModulesRatio: +(median(webModules) / median(baseline)).toFixed(1),
    firstConversionMs: +firstConversion.toFixed(1),
    laterConversionMs: +conversions.toFixed(2),
    firstConversionRatio: +(firstConversion / conversions).toFixed(0),
  },
  page1MB: {
    httpGetMs: +median(getMs).toFixed(1),
    webFetchMs: +median(fetchMs).toFixed(1),
    ratio: +(median(fetchMs) / median(getMs)).toFixed(1),
  },
  page50MB: {
    webFetchRssGrowthMB: +fetchRss.toFixed(1),
    httpGetRssGrowthMB: +getRss.toFixed(1),
    ratio: +(fetchRss / getRss).toFixed(2),
  },
  perTurn: { definitionChars: definition.length, approxTokens: Math.round(definition.length / 4) },
};
console.table({
  "import WebFetch+WebSearch vs TodoWrite (ms)": [
    summary.load.todoWriteModuleMs,
    summary.load.webToolModulesMs,
    summary.load.webToolModulesRatio,
  ],
  "HTML conversion, first vs later (ms)": [
    summary.load.laterConversionMs,
    summary.load.firstConversionMs,
    summary.load.firstConversionRatio,
  ],
  "1 MB page (ms)": [summary.page1MB.httpGetMs, summary.page1MB.webFetchMs, summary.page1MB.ratio],
  "50 MB page, peak RSS growth (MB)": [
    summary.page50MB.httpGetRssGrowthMB,
    summary.page50MB.webFetchRssGrowthMB,
    summary.page50MB.ratio,
  ],
});
console.log(JSON.stringify(summary));
