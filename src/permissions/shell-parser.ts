/**
 * The bash grammar the permission layer reads command lines with: tree-sitter-bash, compiled to WASM,
 * with its runtime (web-tree-sitter). The build copies those three files (1.8 MB) from the
 * `@vscode/tree-sitter-wasm` dev dependency into `dist/vendor/tree-sitter/` (no native build, nothing
 * downloaded at install time). Loaded lazily on the first Bash check, so a session that never runs
 * Bash pays nothing. The tree is copied into plain objects in one cursor walk and the WASM tree freed
 * at once: the analysis never crosses into WASM and nothing leaks if it throws.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** One node of a parsed command line, as plain data. `start`/`end` index the JS string. */
export interface ShellNode {
  /** The grammar's node type: `command`, `word`, `"&&"`, `ERROR`… */
  type: string;
  /** False for punctuation and keywords (`&&`, `;`, `then`). */
  named: boolean;
  start: number;
  end: number;
  /** The source text the node spans. */
  text: string;
  children: ShellNode[];
}

type TreeSitter = typeof import("@vscode/tree-sitter-wasm");
type Parser = InstanceType<TreeSitter["Parser"]>;

let loading: Promise<Parser> | undefined;
let parser: Parser | undefined;

/** Loads the grammar once (about 1.6 MB of WASM); later calls return the same parser. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const { dir, runtime } = grammarFiles();
    const ts = createRequire(import.meta.url)(runtime) as TreeSitter;
    await ts.Parser.init({ locateFile: (file: string) => path.join(dir, file) });
    const language = await ts.Language.load(path.join(dir, "tree-sitter-bash.wasm"));
    const p = new ts.Parser();
    p.setLanguage(language);
    // V8 compiles WASM functions on first use: one typical line now moves that (~0.1-0.2 s) into the load.
    p.parse(WARM_UP_LINE)?.delete();
    parser = p;
    return p;
  })();
  // A failed load (a broken install) is retried on the next call rather than cached.
  loading.catch(() => {
    loading = undefined;
  });
  return loading.then(() => undefined);
}

/**
 * Where the runtime and the grammar are: `dist/vendor/tree-sitter/`, beside the library bundle's entry
 * (`dist/index.js`), one folder up from its `chunks/`, from tsc's `permissions/` and from the CLI
 * bundle's `bin/`, two from `bin/chunks/`; when running from source (tests), the dev dependency they
 * are copied from.
 */
function grammarFiles(): { dir: string; runtime: string } {
  for (const up of ["./vendor/tree-sitter/", "../vendor/tree-sitter/", "../../vendor/tree-sitter/"]) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    const runtime = path.join(dir, "tree-sitter.cjs");
    if (existsSync(runtime)) return { dir, runtime };
  }
  try {
    const runtime = createRequire(import.meta.url).resolve("@vscode/tree-sitter-wasm");
    return { dir: path.dirname(runtime), runtime };
  } catch {
    throw new Error(
      "The bash grammar is missing from this install of goat-agent (dist/vendor/tree-sitter); reinstall the package.",
    );
  }
}

/** A line touching the grammar's common paths: lists, pipes, quotes, substitutions, redirections, heredocs. */
const WARM_UP_LINE = `cd src && FOO=1 ls -la "$HOME" 'x' | grep -n \${a:-b} > /dev/null 2>&1; echo $(date) <<EOF\nx\nEOF\n`;

/**
 * Starts loading the grammar in the background, for a session that will check Bash calls: the load
 * then overlaps the first model request instead of delaying the first Bash call. A failure here is
 * ignored; the first check loads again and reports it.
 */
export function preloadShellParser(): void {
  loadShellParser().catch(() => {});
}

/** True once a load of the grammar has started (or finished) in this process. */
export function shellParserLoadStarted(): boolean {
  return loading !== undefined || parser !== undefined;
}

/** True once `loadShellParser` has finished, so `parseShell` can be called. */
export function shellParserReady(): boolean {
  return parser !== undefined;
}

/** A parsed command line: its nodes, and whether the parser had to recover from an error anywhere. */
export interface ShellTree {
  root: ShellNode;
  /** True when the tree holds an ERROR node or a node the parser made up (a missing `)`, say). */
  hasError: boolean;
}

/** Parses a command line into plain nodes. Call `loadShellParser` first. */
export function parseShell(text: string): ShellTree {
  if (parser === undefined) throw new Error("The shell parser is not loaded yet (call loadShellParser).");
  const tree = parser.parse(text);
  if (tree === null) throw new Error("The shell parser returned no tree.");
  try {
    return { root: copyTree(tree.walk(), text), hasError: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

type Cursor = ReturnType<NonNullable<ReturnType<Parser["parse"]>>["walk"]>;

function copyTree(cursor: Cursor, text: string): ShellNode {
  try {
    const root = nodeAt(cursor, text);
    const stack: ShellNode[] = [root];
    // Depth-first with the cursor: each node is visited once, no Node objects are created.
    if (!cursor.gotoFirstChild()) return root;
    for (;;) {
      const node = nodeAt(cursor, text);
      stack[stack.length - 1].children.push(node);
      if (cursor.gotoFirstChild()) {
        stack.push(node);
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return root;
        stack.pop();
        if (stack.length === 0) return root;
      }
    }
  } finally {
    cursor.delete();
  }
}

function nodeAt(cursor: Cursor, text: string): ShellNode {
  const start = cursor.startIndex;
  const end = cursor.endIndex;
  return {
    type: cursor.nodeType,
    named: cursor.nodeIsNamed,
    start,
    end,
    text: text.slice(start, end),
    children: [],
  };
}
