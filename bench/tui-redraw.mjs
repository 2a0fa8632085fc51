/**
 * Benchmark: what a terminal resize costs the interactive `goat`. The real renderer (markdown, thinking,
 * tool lines) prints N turns into a live screen over a fake terminal; then the width changes and the
 * whole transcript is drawn again (`screen.redrawAll()`, what the resize handler runs once the width
 * settles). Median of R redraws, alternating 80 and 79 columns so every markdown block renders again.
 *
 * Baseline in the same run: printing one turn as it streams (what every turn already costs). Reported:
 *   - redraw / one turn, for sessions of 20, 200 and 2,000 turns: the redraw is bounded (the newest
 *     2,000 rows), so past the bound a 2,000-turn session costs what a 200-turn one does;
 *   - the bytes written by one redraw;
 *   - Ctrl-O (thinking shown, same width): markdown is not rendered again.
 *
 *   npm run build && node bench/tui-redraw.mjs [redraws=15]
 */
import { EventEmitter } from "node:events";
import { createRenderer } from "../dist/cli/renderer.js";
import { loadRich } from "../dist/cli/rich-loader.js";
import { createStyle } from "../dist/cli/style.js";
import { createScreen } from "../dist/cli/terminal/screen.js";
import { createThinkingView } from "../dist/cli/thinking-view.js";
import { median } from "./support/measure.mjs";

const REDRAWS = Number(process.argv[2] ?? 15);
await loadRich();

const ANSWER = [
  "## What changed",
  "",
  'The parser now reads **quoted** strings whole, so `a "b c" d` is three words, not four. The tests',
  "that pinned the old split were rewritten to say what the user types, and one new test covers escapes.",
  "",
  "- `src/parse.ts`: the tokenizer keeps a quote state;",
  "- `test/parse.test.ts`: three cases, one per quoting style;",
  "- `README.md`: the examples use quotes now.",
  "",
  "```ts",
  "export function words(line: string): string[] {",
  '  return tokenize(line).filter((t) => t.kind === "word").map((t) => t.text);',
  "}",
  "```",
  "",
  "Run `npm test` to check; nothing else needs doing.",
].join("\n");
const THINKING =
  "The user wants quoted strings kept whole. I should look at the tokenizer first, then the tests that pin the split. ".repeat(
    4,
  );
const BASH_OUTPUT = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of the test output`).join("\n");

const event = (e) => ({ type: "stream_event", parent_tool_use_id: null, event: e });
const usage = { input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 0 };

/** One turn's SDK messages: thinking and a markdown answer streamed, a Bash call, its output, the result. */
function turnMessages(n) {
  const messages = [
    event({ type: "message_start", message: { usage } }),
    event({ type: "content_block_start", index: 0, content_block: { type: "thinking" } }),
  ];
  for (let i = 0; i < THINKING.length; i += 40)
    messages.push(
      event({
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: THINKING.slice(i, i + 40) },
      }),
    );
  messages.push(event({ type: "content_block_stop", index: 0 }));
  for (let i = 0; i < ANSWER.length; i += 24)
    messages.push(
      event({
        type: "content_block_delta",
        index: 1,
        delta: { type: "text_delta", text: ANSWER.slice(i, i + 24) },
      }),
    );
  messages.push(event({ type: "content_block_stop", index: 1 }));
  const id = `call_${n}`;
  messages.push(
    {
      type: "assistant",
      parent_tool_use_id: null,
      message: {
        content: [
          { type: "thinking", thinking: THINKING },
          { type: "text", text: ANSWER },
          { type: "tool_use", id, name: "Bash", input: { command: "npm test" } },
        ],
        usage,
      },
    },
    {
      type: "user",
      parent_tool_use_id: null,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: BASH_OUTPUT }] },
    },
    {
      type: "result",
      subtype: "success",
      is_error: false,
      total_cost_usd: 0.01 * (n + 1),
      duration_ms: 1000,
      usage,
    },
  );
  return messages;
}

/** A renderer over a live screen on a fake terminal that counts what is written. */
function session() {
  const out = Object.assign(new EventEmitter(), {
    columns: 80,
    rows: 40,
    bytes: 0,
    write(text) {
      out.bytes += text.length;
      return true;
    },
  });
  const style = createStyle(true);
  const screen = createScreen(out, true, { dim: style.dim });
  const status = { begin() {}, show() {}, hide() {}, end() {}, tokens() {}, retry() {}, elapsedMs: () => 0 };
  const thinking = createThinkingView(screen, style, { expanded: false, live: true });
  const renderer = createRenderer(screen, style, status, "/work", thinking);
  return { out, screen, thinking, renderer };
}

const time = (f) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

/** Median ms of printing one turn (after `warm` turns), and of a full redraw after `turns` turns. */
function measure(turns) {
  const s = session();
  const perTurn = [];
  for (let n = 0; n < turns; n++) {
    const messages = turnMessages(n);
    const ms = time(() => {
      for (const m of messages) s.renderer.handle(m);
    });
    if (n >= turns - Math.min(turns, 20)) perTurn.push(ms);
  }
  const redraws = [];
  let bytes = 0;
  for (let i = 0; i < REDRAWS; i++) {
    s.out.columns = i % 2 === 0 ? 79 : 80;
    const before = s.out.bytes;
    redraws.push(time(() => s.screen.redrawAll()));
    bytes = s.out.bytes - before;
  }
  const toggles = [];
  for (let i = 0; i < REDRAWS; i++) {
    toggles.push(
      time(() => {
        s.thinking.toggle();
        s.screen.redrawAll();
      }),
    );
  }
  s.screen.close();
  return { turn: median(perTurn), redraw: median(redraws), toggle: median(toggles), bytes };
}

// A first pass warms the JIT and marked's caches; it is not reported.
measure(20);
const short = measure(20);
const medium = measure(200);
const long = measure(2000);
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const result = {
  bench: "tui-redraw",
  redraws: REDRAWS,
  turn_ms: round(short.turn),
  redraw_short_ms: round(short.redraw),
  redraw_medium_ms: round(medium.redraw),
  redraw_long_ms: round(long.redraw),
  redraw_short_vs_turn: round(short.redraw / short.turn),
  redraw_long_vs_turn: round(long.redraw / short.turn),
  redraw_long_vs_medium: round(long.redraw / medium.redraw),
  redraw_bytes_short: short.bytes,
  redraw_bytes_medium: medium.bytes,
  redraw_bytes_long: long.bytes,
  toggle_long_ms: round(long.toggle),
  toggle_vs_redraw: round(long.toggle / long.redraw),
};
console.log(
  `one turn printed: ${result.turn_ms} ms; redraw after 20 turns: ${result.redraw_short_ms} ms (${result.redraw_short_vs_turn}x a turn, ${short.bytes} bytes); after 200 turns: ${result.redraw_medium_ms} ms (${medium.bytes} bytes); after 2,000 turns: ${result.redraw_long_ms} ms (${result.redraw_long_vs_turn}x a turn, ${long.bytes} bytes); Ctrl-O: ${result.toggle_long_ms} ms`,
);
console.log(JSON.stringify(result));
