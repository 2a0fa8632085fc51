/**
 * Benchmark: what a user's Claude Code set-up costs `goat -p` — 50 skills, 50 slash commands (in
 * `$CLAUDE_CONFIG_DIR`) and 5 plugins (`--plugin-dir`, each with a command, an agent, a skill and a
 * hook; no MCP server, whose start would measure the server) — against none, in an empty project.
 * Measured, in the same run:
 *   1. prompt size: the first request's body with and without the 50 skills (names and descriptions
 *      only reach the prompt), in bytes and in estimated tokens (characters / 4, Goat's own estimate);
 *   2. in process, reading it all (`readProjectDescription`), per call;
 *   3. `goat -p hi`, spawn → exit, against a model server that answers at once, median of N
 *      interleaved rounds.
 *
 *   npm run build && node bench/claude-project-start.mjs [runs=15]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cannedAnthropicAnswer } from "./support/instant-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CLI = resolve(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.goat);
const RUNS = Number(process.argv[2] ?? 15);
const loader = join(root, "dist/settings/project-description.js");
for (const file of [CLI, loader]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run npm run build first`);
    process.exit(1);
  }
}
const { readProjectDescription } = await import(pathToFileURL(loader).href);

const write = (file, text) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

// The set-up: a bare home, a loaded home (50 skills, 50 commands), 5 plugins, an empty project.
const base = mkdtempSync(join(tmpdir(), "goat-bench-claude-project-"));
const project = join(base, "project");
mkdirSync(project);
const homes = { bare: join(base, "bare"), loaded: join(base, "loaded") };
for (const home of Object.values(homes)) mkdirSync(join(home, "claude"), { recursive: true });
const topics = ["PDF forms", "SQL migrations", "release notes", "API docs", "changelog entries"];
for (let i = 0; i < 50; i++) {
  const topic = `${topics[i % topics.length]} #${i}`;
  write(
    join(homes.loaded, "claude", "skills", `skill-${i}`, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: Works with ${topic}: reads them, checks them against the house rules and fixes what is off. Use when the user mentions ${topic}.\n---\n${"Step by step instructions. ".repeat(40)}\n`,
  );
  write(
    join(homes.loaded, "claude", "commands", `command-${i}.md`),
    `---\ndescription: Prepare ${topic}\nargument-hint: [target]\n---\nPrepare ${topic} for $ARGUMENTS.\n`,
  );
}
const plugins = [];
for (let p = 0; p < 5; p++) {
  const dir = join(base, "plugins", `plugin-${p}`);
  write(
    join(dir, ".claude-plugin", "plugin.json"),
    JSON.stringify({ name: `plugin-${p}`, version: "1.0.0" }),
  );
  write(join(dir, "commands", "run.md"), "---\ndescription: Run it\n---\nRun $ARGUMENTS.\n");
  write(join(dir, "agents", "helper.md"), "---\ndescription: Helps\n---\nYou help.\n");
  write(join(dir, "skills", "style", "SKILL.md"), "---\ndescription: The house style\n---\nTabs.\n");
  write(
    join(dir, "hooks", "hooks.json"),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
    }),
  );
  plugins.push(dir);
}

// A model server that answers at once and keeps the size of each request body.
const bodies = [];
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    bodies.push(body);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(cannedAnthropicAnswer());
  });
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const envFor = (home) => ({
  PATH: process.env.PATH,
  HOME: base,
  GOAT_HOME: home,
  CLAUDE_CONFIG_DIR: join(home, "claude"),
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
  ANTHROPIC_API_KEY: "bench",
});
const setups = {
  none: { env: envFor(homes.bare), args: [] },
  // The 50 skills and commands alone: what the skills add to the prompt.
  skills: { env: envFor(homes.loaded), args: [] },
  loaded: { env: envFor(homes.loaded), args: plugins.flatMap((dir) => ["--plugin-dir", dir]) },
};

/** Runs `goat -p hi` once; resolves with ms from spawn to exit and the request body it sent. */
function runOnce(setup) {
  return new Promise((done, fail) => {
    const before = bodies.length;
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [CLI, "-p", "hi", "--model", "claude-sonnet-4-5", "--no-session-persistence", ...setup.args],
      { env: setup.env, cwd: project, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (b) => {
      stderr += b;
    });
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) fail(new Error(`goat exited ${code}: ${stderr}`));
      else done({ ms, body: bodies[before] ?? "" });
    });
  });
}

// 1. The prompt.
const bare = await runOnce(setups.none);
const loaded = await runOnce(setups.skills);
const skillTool = (body) => JSON.parse(body).tools.find((t) => t.name === "Skill");
const skillsTool = skillTool(loaded.body);
const prompt = {
  body_bytes_none: bare.body.length,
  body_bytes_loaded: loaded.body.length,
  added_bytes: loaded.body.length - bare.body.length,
  added_tokens_est: Math.round((loaded.body.length - bare.body.length) / 4),
  skill_tool_chars: skillsTool
    ? skillsTool.description.length + JSON.stringify(skillsTool.input_schema).length
    : 0,
};

// 2. In process.
const request = {
  cwd: project,
  env: setups.loaded.env,
  sources: ["user", "project"],
  plugins: plugins.map((path) => ({ type: "local", path })),
};
for (let i = 0; i < 20; i++) readProjectDescription(request);
const n = 200;
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) readProjectDescription(request);
const readMs = Number(process.hrtime.bigint() - t0) / 1e6 / n;

// 3. Start-up, interleaved.
const samples = { none: [], loaded: [] };
for (let round = 0; round < RUNS; round++) {
  const order = round % 2 === 0 ? ["none", "loaded"] : ["loaded", "none"];
  for (const name of order) samples[name].push((await runOnce(setups[name])).ms);
}
server.close();
rmSync(base, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = (() => {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
})();
const none = median(samples.none);
const withAll = median(samples.loaded);
console.log(`a Claude Code set-up at goat -p start-up (load average ${load})`);
console.log(
  `prompt: 50 skills add ${prompt.added_bytes} bytes to the first request (~${prompt.added_tokens_est} tokens; the Skill tool is ${prompt.skill_tool_chars} characters)`,
);
console.log(`in process: reading 50 skills, 50 commands and 5 plugins takes ${readMs.toFixed(2)} ms`);
console.log(
  `goat -p hi, spawn → exit, median of ${RUNS}: none ${none.toFixed(1)} ms · 50 skills, 50 commands, 5 plugins ${withAll.toFixed(1)} ms (+${(withAll - none).toFixed(1)} ms, ${(withAll / none).toFixed(3)}x)`,
);
console.log(
  JSON.stringify({
    bench: "claude-project-start",
    runs: RUNS,
    prompt,
    read_ms: +readMs.toFixed(3),
    start_none_ms: +none.toFixed(1),
    start_loaded_ms: +withAll.toFixed(1),
  }),
);
