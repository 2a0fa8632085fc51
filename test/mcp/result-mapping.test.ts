/**
 * How MCP results, names and annotations map onto Goat's: the cases the live-server tests do not reach.
 */
import { describe, expect, it } from "vitest";
import { mapCallToolResult, mcpToolName, sideEffectOf } from "../../src/mcp/tool-adapter.js";
import { PNG_1X1 } from "./helpers.js";

describe("mapCallToolResult", () => {
  it("turns embedded text resources into text and image blobs into image blocks", () => {
    const result = mapCallToolResult({
      content: [
        { type: "resource", resource: { uri: "file:///a.txt", text: "file body", mimeType: "text/plain" } },
        { type: "resource", resource: { uri: "file:///a.png", blob: PNG_1X1, mimeType: "image/png" } },
        { type: "resource", resource: { uri: "file:///a.bin", blob: "AAAA", mimeType: "application/zip" } },
      ],
    });
    expect(result.content).toEqual([
      { type: "text", text: "file body" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } },
      { type: "text", text: "[binary resource file:///a.bin (application/zip) omitted]" },
    ]);
  });

  it("describes resource links, audio and unsupported image types in text", () => {
    const result = mapCallToolResult({
      content: [
        { type: "resource_link", uri: "https://x/y", name: "y", description: "the y doc" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "image", data: "AAAA", mimeType: "image/tiff" },
      ],
    });
    expect(result.content).toEqual([
      { type: "text", text: "[resource y at https://x/y: the y doc]" },
      { type: "text", text: "[audio (audio/wav) omitted: the model cannot hear it]" },
      { type: "text", text: "[image (image/tiff) omitted: unsupported type]" },
    ]);
  });

  it("shows structured content to the model when there is no other content, and keeps it in details", () => {
    expect(mapCallToolResult({ content: [], structuredContent: { a: 1 } })).toEqual({
      content: [{ type: "text", text: '{"a":1}' }],
      details: { a: 1 },
    });
    expect(mapCallToolResult({ content: [], isError: true })).toEqual({
      content: "(no output)",
      isError: true,
    });
  });
});

describe("names and side effects", () => {
  it("sanitises and bounds tool names", () => {
    expect(mcpToolName("git hub", "create/issue.v2")).toBe("mcp__git_hub__create_issue_v2");
    expect(mcpToolName("s", "x".repeat(300))).toHaveLength(128);
  });

  it("treats only read-only tools as safe to run concurrently", () => {
    expect(sideEffectOf(undefined)).toBe("mutating");
    expect(sideEffectOf({ readOnlyHint: false, openWorldHint: true })).toBe("mutating");
    expect(sideEffectOf({ readOnlyHint: true })).toBe("none");
    expect(sideEffectOf({ readOnlyHint: true, openWorldHint: true })).toBe("read");
  });
});
