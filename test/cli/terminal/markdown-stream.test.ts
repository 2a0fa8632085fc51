import { describe, expect, it } from "vitest";
import { createMarkdownStream } from "../../../src/cli/render/markdown-stream.js";

function harness(ready: { value: boolean }) {
  const printed: string[] = [];
  let preview: string[] = [];
  const stream = createMarkdownStream(
    (md, first) => {
      if (!ready.value) return false;
      printed.push(`${first ? "" : "\n"}<${md.trim()}>\n`);
      return true;
    },
    (lines) => {
      preview = lines;
    },
  );
  return { stream, printed, preview: () => preview };
}

describe("markdown streaming", () => {
  it("renders each block once complete, never inside a code fence, and the rest at the end", () => {
    const h = harness({ value: true });
    h.stream.push("Intro para");
    expect(h.printed).toEqual([]);
    expect(h.preview()).toEqual(["Intro para"]);
    h.stream.push("graph.\n\n```sh\necho a\n\necho b\n");
    expect(h.printed).toEqual(["<Intro paragraph.>\n"]);
    h.stream.push("```\nAfter");
    expect(h.printed).toEqual(["<Intro paragraph.>\n", "\n<```sh\necho a\n\necho b\n```>\n"]);
    h.stream.end();
    expect(h.printed.at(-1)).toBe("\n<After>\n");
    expect(h.preview()).toEqual([]);
    expect(h.stream.active).toBe(false);
  });

  it("while the renderer is not loaded, text stays visible in the preview, and flush renders it in order", () => {
    const ready = { value: false };
    const h = harness(ready);
    h.stream.push("First.\n\nSecond.");
    h.stream.end();
    expect(h.printed).toEqual([]);
    expect(h.preview()).toEqual(["First.", "", "Second."]);
    ready.value = true;
    expect(h.stream.flush()).toBe(true);
    expect(h.printed).toEqual(["<First.\n\nSecond.>\n"]);
    expect(h.preview()).toEqual([]);
  });
});
