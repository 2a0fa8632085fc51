/** The lazily loaded rendering helpers: markdown and diffs (see `../rich-loader.ts`). */
export { changeLines, editDiff, writeView } from "./diff-view.js";
export { renderMarkdown } from "./markdown.js";
