/**
 * File selection for the built-in Grep, matching ripgrep's: `--glob` overrides (a glob without "/"
 * matches the file name at any depth, "!" excludes, the last matching glob wins and overrides
 * `.gitignore`) and `--type` filters from ripgrep's built-in type list (the common types).
 */
import { picomatch } from "./lazy-packages.js";

/** ripgrep's definitions (rg 13 `--type-list`) for the types the built-in search knows. */
const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ["*.[chH]", "*.[chH].in", "*.cats"],
  cpp: [
    "*.[ChH]",
    "*.[ChH].in",
    "*.[ch]pp",
    "*.[ch]pp.in",
    "*.[ch]xx",
    "*.[ch]xx.in",
    "*.cc",
    "*.cc.in",
    "*.hh",
    "*.hh.in",
    "*.inl",
  ],
  csharp: ["*.cs"],
  css: ["*.css", "*.scss"],
  go: ["*.go"],
  html: ["*.ejs", "*.htm", "*.html"],
  java: ["*.java", "*.jsp", "*.jspx", "*.properties"],
  js: ["*.js", "*.jsx", "*.vue"],
  json: ["*.json", "composer.lock"],
  jsonl: ["*.jsonl"],
  kotlin: ["*.kt", "*.kts"],
  lua: ["*.lua"],
  markdown: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  md: ["*.markdown", "*.md", "*.mdown", "*.mkdn"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.phtml"],
  py: ["*.py"],
  ruby: ["*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"],
  rust: ["*.rs"],
  scala: ["*.sbt", "*.scala"],
  sh: [
    "*.bash",
    "*.bashrc",
    "*.csh",
    "*.cshrc",
    "*.ksh",
    "*.kshrc",
    "*.sh",
    "*.tcsh",
    "*.zsh",
    ".bash_login",
    ".bash_logout",
    ".bash_profile",
    ".bashrc",
    ".cshrc",
    ".kshrc",
    ".login",
    ".logout",
    ".profile",
    ".tcshrc",
    ".zlogin",
    ".zlogout",
    ".zprofile",
    ".zshenv",
    ".zshrc",
    "bash_login",
    "bash_logout",
    "bash_profile",
    "bashrc",
    "profile",
    "zlogin",
    "zlogout",
    "zprofile",
    "zshenv",
    "zshrc",
  ],
  sql: ["*.psql", "*.sql"],
  swift: ["*.swift"],
  toml: ["*.toml", "Cargo.lock"],
  ts: ["*.ts", "*.tsx"],
  txt: ["*.txt"],
  xml: ["*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"],
  yaml: ["*.yaml", "*.yml"],
};

/** Decides, for a root-relative path, keep (true), drop (false) or let `.gitignore` decide (undefined). */
export type PathFilter = (rel: string, isDir: boolean) => boolean | undefined;

/**
 * Builds the walker filter for `--glob` patterns and a `--type`. Throws for a type the built-in
 * search does not know, naming the ones it does.
 */
export function makePathFilter(globs: readonly string[], type: string | undefined): PathFilter | undefined {
  const overrides = globs.map((g) => {
    const negated = g.startsWith("!");
    const pattern = negated ? g.slice(1) : g;
    return { negated, test: globMatcher(pattern) };
  });
  const hasPositive = overrides.some((o) => !o.negated);
  let typeTest: ((rel: string) => boolean) | undefined;
  if (type !== undefined) {
    const defs = FILE_TYPES[type];
    if (!defs) {
      throw new Error(
        `Unknown file type "${type}". Known types: ${Object.keys(FILE_TYPES).join(", ")}. Use glob instead.`,
      );
    }
    const matchers = defs.map((d) => picomatch()(d, { dot: true, basename: true }));
    typeTest = (rel) => matchers.some((m) => m(rel));
  }
  if (overrides.length === 0 && !typeTest) return undefined;
  return (rel, isDir) => {
    let decision: boolean | undefined;
    for (let i = overrides.length - 1; i >= 0; i--) {
      if (overrides[i].test(rel)) {
        decision = !overrides[i].negated;
        break;
      }
    }
    if (isDir) return decision === false ? false : decision;
    if (decision === undefined && hasPositive) return false;
    if (typeTest && !typeTest(rel)) return false;
    return decision;
  };
}

/** A glob without "/" matches the file name at any depth; with "/" it matches the root-relative path. */
function globMatcher(pattern: string): (rel: string) => boolean {
  const anchored = pattern.startsWith("/");
  const body = anchored ? pattern.slice(1) : pattern;
  if (!anchored && !body.includes("/")) return picomatch()(body, { dot: true, basename: true });
  return picomatch()(body, { dot: true });
}

/**
 * Splits the model's `glob` argument like Claude Code: on whitespace, then on commas unless the part
 * uses braces ("*.{ts,tsx}" stays whole).
 */
export function splitGlobs(glob: string | undefined): string[] {
  if (!glob) return [];
  const out: string[] = [];
  for (const part of glob.split(/\s+/)) {
    if (part === "") continue;
    if (part.includes("{") && part.includes("}")) out.push(part);
    else out.push(...part.split(",").filter(Boolean));
  }
  return out;
}
