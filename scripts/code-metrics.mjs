/**
 * Two code-hygiene figures for src/, read from the TypeScript syntax tree (not a text search, so
 * comments and strings never count):
 *
 *   node scripts/code-metrics.mjs any [dir…]              every `any` type written in the source
 *   node scripts/code-metrics.mjs long [max] [dir…]        functions longer than max lines (default 80)
 *
 * Both print one line per finding and a total; they report, they do not fail (the figures are
 * tracked in issue #33, not enforced).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

function parse(path) {
  return ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
}

function walk(node, visit) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

const lineOf = (file, pos) => file.getLineAndCharacterOfPosition(pos).line + 1;

/** Every `any` keyword in a type position, with its line. */
function anyTypes(file) {
  const found = [];
  walk(file, (node) => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(lineOf(file, node.getStart(file)));
  });
  return found;
}

/** A readable name for a function node: its own name, or the variable or property it is assigned to. */
function functionName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText();
  }
  return "(anonymous)";
}

/** Functions whose body spans more than max lines (each counted on its own, nested ones included). */
function longFunctions(file, max) {
  const found = [];
  walk(file, (node) => {
    if (!ts.isFunctionLike(node) || !node.body) return;
    const lines = lineOf(file, node.getEnd()) - lineOf(file, node.getStart(file)) + 1;
    if (lines > max) found.push({ line: lineOf(file, node.getStart(file)), name: functionName(node), lines });
  });
  return found;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "any") {
  const dirs = rest.length > 0 ? rest : ["src"];
  let total = 0;
  for (const dir of dirs) {
    for (const path of sourceFiles(dir)) {
      const lines = anyTypes(parse(path));
      total += lines.length;
      for (const line of lines) console.log(`${relative(".", path)}:${line}`);
    }
  }
  console.log(`total any: ${total}`);
} else if (mode === "long") {
  const max = rest.length > 0 && /^\d+$/.test(rest[0]) ? Number(rest.shift()) : 80;
  const dirs = rest.length > 0 ? rest : ["src"];
  const all = [];
  for (const dir of dirs) {
    for (const path of sourceFiles(dir)) {
      for (const found of longFunctions(parse(path), max)) all.push({ path: relative(".", path), ...found });
    }
  }
  all.sort((a, b) => b.lines - a.lines);
  for (const f of all) console.log(`${String(f.lines).padStart(4)}  ${f.path}:${f.line}  ${f.name}`);
  console.log(`functions over ${max} lines: ${all.length}`);
} else {
  console.error("usage: node scripts/code-metrics.mjs any [dir…] | long [max] [dir…]");
  process.exit(2);
}
