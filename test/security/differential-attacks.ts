/**
 * The parts of a line that aim at the classes issue #29 lists: words bash evaluates (`printf -v
 * 'x[$(cmd)]'`, `declare`, `read -a`, `let`, `test -v`, `[[ -v ]]`, `mapfile`, `${a[$(cmd)]}`,
 * arithmetic), heredoc bodies (quoted, unquoted, `<<-` with tabs) and here-strings, options that read
 * lists of paths (`--files0-from=-`), the environment, links and renames that change what a later part
 * touches (`cp -P`, `cp -r` of a linked directory, `mv`), protected names made by backup suffixes or
 * by copying a tree, removing the project itself, and PATH pointed at a planted program.
 */
import { PROTECTED_DIR_NAMES, PROTECTED_FILE_NAMES } from "../../src/sandbox/protected-names.js";
import type { Part } from "./differential-commands.js";
import { type PathPool, pickPath, quote, type Rng } from "./differential-words.js";

/** What an attack needs: the random source, the path pool, payload commands, absolute paths. */
export interface AttackContext {
  rng: Rng;
  pool: PathPool;
  payloads: readonly string[];
  project: string;
}

type Attack = (ctx: AttackContext) => Part;

/** A payload wrapped in a command substitution or backticks. */
function substitution(ctx: AttackContext): string {
  const p = ctx.rng.pick(ctx.payloads);
  return ctx.rng.chance(0.7) ? `$(${p})` : `\`${p}\``;
}

/** Names and arithmetic bash evaluates: a subscript anywhere a name is taken runs its substitution. */
const evaluatedName: Attack = (ctx) => {
  const { rng } = ctx;
  const sub = substitution(ctx);
  const name = `x[${sub}]`;
  const form = rng.pick([
    `printf -v ${quote(name)} %s 1`,
    `printf -v "${name.replaceAll("$", "\\$")}" '%s' 1`,
    `printf -v ${quote(name)} ''`,
    `declare ${quote(`${name}=1`)}`,
    `declare -a ${quote(name)}`,
    `local ${quote(name)}`,
    `export ${quote(`${name}=1`)}`,
    `unset ${quote(name)}`,
    `read -a ${quote(name)} <<< 1`,
    `read ${quote(name)} <<< 1`,
    `let ${quote(`${name}=1`)}`,
    `test -v ${quote(name)}`,
    `[ -v ${quote(name)} ]`,
    `[[ -v ${name} ]]`,
    `mapfile -t ${quote(name)} < notes.txt`,
    `mapfile -C ${quote(`${ctx.rng.pick(ctx.payloads)} #`)} -c 1 lines < notes.txt`,
    `: \${a[${sub}]}`,
    `echo "\${#a[${sub}]}"`,
    `echo $((1 + a[${sub}]))`,
    `echo \${x:-${sub}}`,
    `printf '%d' ${quote(name)}`,
    `type ${quote(name)}`,
    `echo ${sub}`,
    `cat <<< "${sub}"`,
  ]);
  return { head: form, tags: [`eval:${form.split(" ")[0]}`] };
};

/** A heredoc, quoted or not, `<<-` with tab-indented bodies, feeding a reading program. */
const heredoc: Attack = (ctx) => {
  const { rng } = ctx;
  const program = rng.pick([
    "cat",
    "grep -v zzz",
    "sort",
    "wc -c",
    "head -n 5",
    "jq -R .",
    "sed -n p",
    "tac",
    "cut -c1-200",
    "diff - notes.txt",
    "uniq",
  ]);
  const [opener, delim, quoted] = rng.pick([
    ["<<EOF", "EOF", false],
    ["<< EOF", "EOF", false],
    ["<<-EOF", "EOF", false],
    ["<<'EOF'", "EOF", true],
    ['<<"EOF"', "EOF", true],
    ["<<\\EOF", "EOF", true],
    ["<<-'EOF'", "EOF", true],
    ['<<E"O"F', "EOF", true],
  ] as const);
  const dash = opener.startsWith("<<-");
  const bodyLine = rng.pick([
    substitution(ctx),
    "$AWS_SECRET_ACCESS_KEY",
    "$" + "{AWS_SECRET_ACCESS_KEY}", // bash's braces, not a template placeholder
    `\${x[${substitution(ctx)}]}`,
    `$((a[${substitution(ctx)}]))`,
    "plain text",
    "$HOME",
  ]);
  const indent = dash ? "\t" : "";
  const body = `${indent}line one\n${indent}${bodyLine}\n${dash && rng.chance(0.5) ? "\t" : ""}${delim}`;
  const after = rng.pick(["", " | wc -l", " > out.txt", " | cat"]);
  const tag = `heredoc:${dash ? "dash-" : ""}${quoted ? "quoted" : "unquoted"}`;
  return { head: `${program} ${opener}${after}`, trailer: body, tags: [tag] };
};

/** Options that read a list of paths from stdin or a file: the files named inside are read. */
const listOfPaths: Attack = (ctx) => {
  const { rng, pool } = ctx;
  const tags = ["list-of-paths"];
  const prog = rng.pick(["sort", "wc", "du", "wc -c", "du -a", "sort -u"]);
  const option = rng.pick([
    "--files0-from=-",
    "--files0-from -",
    "--files0-from=lists/files0",
    "--files0=-",
    "--files0-f=lists/files0",
  ]);
  if (!option.includes("-")) return { head: `${prog} ${option}`, tags };
  const source = rng.pick([
    `printf '%s\\0' ${pickPath(rng, pool, tags)} |`,
    "cat lists/files0 |",
    `printf '${pickPath(rng, pool, tags, ["outside", "throughLink", "dotDotAfterLink"]).replaceAll("'", "")}\\0' |`,
    "",
  ]);
  return { head: `${source} ${prog} ${option}`.trim(), tags };
};

/** Reads of the environment: jq's `$ENV` spelled with a space, /proc/self/environ, a variable. */
const environment: Attack = (ctx) => ({
  head: ctx.rng.pick([
    "jq -n '$ ENV'",
    "jq -n '$ENV'",
    "jq -rn '$ ENV.AWS_SECRET_ACCESS_KEY'",
    "jq -n '$\tENV'",
    "jq -n 'env'",
    "jq -n '\"\\($ ENV)\"'",
    "jq -n '[$ ENV][0]|tostring'",
    "cat /proc/self/environ",
    "sort -z /proc/self/environ",
    "grep -a AWS /proc/self/environ",
    "head -c 4000 /proc/1/environ",
    "echo $AWS_SECRET_ACCESS_KEY",
    "printf '%s' \"$AWS_SECRET_ACCESS_KEY\"",
  ]),
  tags: ["environment"],
});

/** One part makes a link or moves one; a later part uses the new name, judged before anything ran. */
const linkThenUse: Attack = (ctx) => {
  const { rng } = ctx;
  const [source, tail] = rng.pick([
    ["link-out", ""],
    ["link-dir", "/secret.txt"],
    ["link-dir", "/pwned.txt"],
    ["dangling", ""],
    ["node_modules/pkg", "/index.js"],
    ["src/parent", "/canary/secret.txt"],
    ["src/parent", "/home/.netrc"],
    ["src/parent", "/canary/pwned.txt"],
    ["link-in", ""],
  ] as const);
  const make = rng.pick([
    "cp -P",
    "cp -d",
    "cp -a",
    "cp --no-dereference",
    "cp -r",
    "cp -R",
    "mv",
    "cp -rP",
    "ln -s",
    "ln",
  ]);
  const name = rng.pick(["x", "up", "'new name'", "src/x"]);
  const target = `${name}${tail}`;
  const use = rng.pick([
    `cat ${target}`,
    `echo pwned > ${target}`,
    `echo pwned >> ${target}`,
    `touch ${target}`,
    `cp notes.txt ${target}`,
    `rm -f ${target}`,
    `mkdir -p ${target}`,
    `sed -i s/a/b/ ${target}`,
    `head -c 100 < ${target}`,
    `ls ${name}/`,
    `wc -c ${target}`,
    `chmod 600 ${target}`,
  ]);
  const sep = rng.pick([" && ", "; ", "\n"]);
  return { head: `${make} ${source} ${name}${sep}${use}`, tags: [`link-then-use:${make.split(" ")[0]}`] };
};

/** Backup suffixes that complete a protected name (`.bash` + `rc`), or point elsewhere. */
const backupSuffix: Attack = (ctx) => {
  const { rng } = ctx;
  const names = [...PROTECTED_FILE_NAMES, ...PROTECTED_DIR_NAMES];
  const full = rng.pick(names);
  const cut = rng.int(1, full.length - 1);
  const [prefix, suffix] = rng.chance(0.8)
    ? [full.slice(0, cut), full.slice(cut)]
    : [rng.pick(["x", "notes.txt"]), rng.pick(["/../../canary/pwned", "../../canary/pwned", ".~1~"])];
  const dest = quote(prefix);
  const s = quote(suffix);
  const forms = [
    `cp notes.txt ${dest} && cp -b -S ${s} README.md ${dest}`,
    `cp notes.txt ${dest}; cp --backup=simple --suffix=${s} README.md ${dest}`,
    `cp notes.txt ${dest} && mv -b -S ${s} README.md ${dest}`,
    `mkdir -p ${dest} newdir && mv -b -S ${s} -T newdir ${dest}`,
    `cp -b --suffix ${s} README.md ${dest}`,
  ];
  return { head: rng.pick(forms), tags: ["backup-suffix"] };
};

/** Removing the project itself, or through a trailing slash on a linked directory. */
const removeTree: Attack = (ctx) => ({
  head: ctx.rng.pick([
    "rm -rf ../project",
    `rm -rf ${quote(ctx.project)}`,
    "rm -rf .",
    "rm -rf ./",
    "rm -r src/..",
    "rm -rf -- ../project",
    "rmdir ../project",
    "rm -rf .git",
    "rm -rf node_modules/pkg/",
    "rm -rf link-dir/",
    "rm -rf src/parent/",
    "rm -rf 'dir with space' src/parent/.git",
  ]),
  tags: ["remove-tree"],
});

/** Copying or moving a tree that holds protected names creates them where the engine never looked. */
const copyProtectedTree: Attack = (ctx) => ({
  head: ctx.rng.pick([
    "cp -r templates/. .",
    "cp -rT templates .",
    "cp -r templates copy",
    "mv templates copy",
    "cp -a templates/. src",
    "cp -r templates/.claude .",
    "cp templates/.envrc .",
    "mv templates/.envrc src",
  ]),
  tags: ["copy-protected-tree"],
});

/** A program planted in the project, then PATH pointed at it. */
const pathHijack: Attack = (ctx) => ({
  head: ctx.rng.pick([
    "cp tools/run.sh ls && printf -v PATH %s . && ls",
    "cp tools/run.sh cat; printf -v PATH %s .; cat notes.txt",
    "printf -v PATH %s tools && run.sh",
    "cp tools/run.sh wc && printf -v PATH '%s' \"$PWD\" && wc notes.txt",
    "printf -v HOME %s ../canary && cat ~/secret.txt",
    "printf -v BASH_ENV %s tools/run.sh; cat notes.txt",
  ]),
  tags: ["path-hijack"],
});

/** Every attack with its weight. */
export const ATTACKS: ReadonlyArray<[Attack, number]> = [
  [evaluatedName, 4],
  [heredoc, 4],
  [listOfPaths, 2],
  [environment, 1],
  [linkThenUse, 4],
  [backupSuffix, 2],
  [removeTree, 1],
  [copyProtectedTree, 1],
  [pathHijack, 1],
];
