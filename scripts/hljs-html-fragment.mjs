/**
 * What cli-highlight needs of parse5, for highlight.js's HTML only: the goat bundle gives cli-highlight
 * this module for `parse5` and `parse5-htmlparser2-tree-adapter` (scripts/cli-bundle-plugins.mjs).
 *
 * cli-highlight turns highlight.js's HTML into terminal colours by parsing it with parse5, a whole
 * HTML5 parser: 356 KB, over a third of the markdown renderer `goat` loads for its first answer.
 * highlight.js writes nothing but `<span class="…">`, `</span>` and text in which it escapes `&`, `<`,
 * `>`, `"` and `'`, so this reads exactly that, into the node shapes cli-highlight walks (text nodes
 * with `data`, tag nodes with `attribs.class` and `childNodes`). test/cli/hljs-html-fragment.test.ts
 * checks it against parse5 on highlight.js's output for every language the bundle carries.
 */

const ENTITY = /&(amp|lt|gt|quot|#x27|#39);/g;
const DECODED = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };
const TAG = /<span class="([^"]*)">|<\/span>/g;

function decode(text) {
  // As an HTML parser does before anything else: CR LF and a lone CR become LF.
  return text.replace(/\r\n?/g, "\n").replace(ENTITY, (_, name) => DECODED[name]);
}

/** The fragment's nodes, as parse5 with the htmlparser2 tree adapter gives them to cli-highlight. */
export function parseFragment(html) {
  const root = { type: "root", childNodes: [] };
  const open = [root];
  const addText = (raw) => {
    if (raw === "") return;
    const siblings = open[open.length - 1].childNodes;
    const previous = siblings[siblings.length - 1];
    // Adjacent text is one text node, as in a parsed document.
    if (previous?.type === "text") previous.data += decode(raw);
    else siblings.push({ type: "text", data: decode(raw) });
  };
  let last = 0;
  TAG.lastIndex = 0;
  for (let match = TAG.exec(html); match !== null; match = TAG.exec(html)) {
    addText(html.slice(last, match.index));
    last = TAG.lastIndex;
    if (match[1] !== undefined) {
      const node = { type: "tag", attribs: { class: decode(match[1]) }, childNodes: [] };
      open[open.length - 1].childNodes.push(node);
      open.push(node);
    } else if (open.length > 1) {
      open.pop();
    }
  }
  addText(html.slice(last));
  return root;
}

/** Stands in for parse5-htmlparser2-tree-adapter's adapter, which cli-highlight only passes along. */
export default {};
