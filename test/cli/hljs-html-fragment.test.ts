/**
 * The `goat` bundle gives cli-highlight scripts/hljs-html-fragment.mjs instead of parse5 to read
 * highlight.js's HTML (scripts/cli-bundle-plugins.mjs). The colours cli-highlight gives a block are
 * decided by the nodes it walks, so the nodes must be parse5's: checked here on highlight.js's output,
 * for every language the bundle carries and for detection, with text that highlight.js has to escape.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { HIGHLIGHT_LANGUAGES } from "../../scripts/cli-bundle-plugins.mjs";
import { type FragmentNode, parseFragment } from "../../scripts/hljs-html-fragment.mjs";

const require = createRequire(import.meta.url);
// The packages cli-highlight itself uses (its dependencies, installed with it).
const hljs = require("highlight.js/lib/core");
for (const name of HIGHLIGHT_LANGUAGES)
  hljs.registerLanguage(name, require(`highlight.js/lib/languages/${name}`));
const parse5 = require("parse5");
const treeAdapter = require("parse5-htmlparser2-tree-adapter");

/** A node as cli-highlight reads it: text, or a span's class and children. */
type Shape = string | { class: string; children: Shape[] };
const shape = (node: FragmentNode): Shape =>
  node.type === "text" ? node.data : { class: node.attribs.class, children: node.childNodes.map(shape) };

/** Code with something for most grammars, and every character highlight.js escapes, CR LF included. */
const SAMPLE = [
  `// a comment & "double" 'single' <tag attr="v"> &amp; already`,
  "function f(a, b) { return a < b && b > 0 ? \"x\" : 'y'; } # hash\r",
  "def g(x):\r\n    return x ** 2  # python",
  "$var = 1.5e3; /* block */ SELECT * FROM t WHERE a = 'b' AND c <> 2;",
  "<div class=\"c\" data-x='1'>&lt;text&gt;</div> {{ template }}",
  'key: value # yaml\n[section]\nname = "ini"',
].join("\n");

function bothReadings(html: string): [Shape[], Shape[]] {
  const ours = parseFragment(html).childNodes.map(shape);
  const theirs = (parse5.parseFragment(html, { treeAdapter }).childNodes as FragmentNode[]).map(shape);
  return [ours, theirs];
}

describe("highlight.js's HTML read without parse5", () => {
  it.each([...HIGHLIGHT_LANGUAGES])("gives parse5's nodes for %s", (language) => {
    const { value } = hljs.highlight(SAMPLE, { language, ignoreIllegals: true });
    const [ours, theirs] = bothReadings(value);
    expect(ours).toEqual(theirs);
  });

  it("is checked on highlighted code: the sample gets spans in all but a few plain grammars", () => {
    const plain = HIGHLIGHT_LANGUAGES.filter(
      (language) =>
        !hljs.highlight(SAMPLE, { language, ignoreIllegals: true }).value.includes('<span class="'),
    );
    expect(plain).toEqual(["diff", "plaintext", "python-repl"]);
  });

  it("gives parse5's nodes for a detected language, and for text with nothing to highlight", () => {
    for (const html of [hljs.highlightAuto(SAMPLE).value, "plain &amp; simple", ""]) {
      const [ours, theirs] = bothReadings(html);
      expect(ours).toEqual(theirs);
    }
  });
});
