/** Types of `hljs-html-fragment.mjs`: highlight.js's HTML read into the nodes cli-highlight walks. */

/** A text node (entities decoded) or a `<span>` with its class and children. */
export type FragmentNode =
  | { type: "text"; data: string }
  | { type: "tag"; attribs: { class: string }; childNodes: FragmentNode[] };

/** The fragment's nodes, as parse5 with the htmlparser2 tree adapter gives them to cli-highlight. */
export declare function parseFragment(html: string): { type: "root"; childNodes: FragmentNode[] };

/** Stands in for parse5-htmlparser2-tree-adapter's adapter, which cli-highlight only passes along. */
declare const adapter: Record<string, never>;
export default adapter;
