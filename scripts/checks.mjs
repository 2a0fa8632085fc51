/**
 * The checks `npm test` runs before the tests, side by side instead of one after another: the build
 * (then the API report check, which reads the built types), the type check, and the linters (then
 * the install of the official Claude Agent SDK the tests drive goat with, test/sdk/install.mjs, a
 * no-op once installed). They share no output, and the type check is one single-threaded process, so
 * on a two-core machine the others run beside it: measured back to back, 18-19 s side by side against
 * 20-22 s in a row.
 *
 * Each group's output is printed in one piece when it ends, so logs never interleave. The exit code
 * is 1 when any check failed; every group still runs to its end, so one run reports every failure.
 */
import { spawn } from "node:child_process";
import { ensureOfficialClientsInstalled } from "../test/llm/official/install.mjs";
import { ensureOfficialCloudClients } from "../test/llm/official-cloud/install.mjs";
import { ensureClaudeSdkInstalled } from "../test/sdk/install.mjs";

/**
 * Set-up that is not an npm script. A failed install fails no check: the SDK tests try again and
 * report it there, beside the tests it stops (as before this step existed).
 */
const installTestSdk = {
  name: "the Claude Agent SDK of test/sdk",
  run: () =>
    ensureClaudeSdkInstalled().then(
      () => ({ code: 0, output: "" }),
      (error) => ({
        code: 0,
        output: `warning: could not install the Claude Agent SDK of test/sdk (the SDK tests will try again): ${error.message}\n`,
      }),
    ),
};

/** The providers' official clients test/llm/official checks the mock wires with (as the SDK's). */
const installOfficialClients = {
  name: "the official provider clients of test/llm/official",
  run: () =>
    ensureOfficialClientsInstalled().then(
      () => ({ code: 0, output: "" }),
      (error) => ({
        code: 0,
        output: `warning: could not install the official clients of test/llm/official (their tests will try again): ${error.message}\n`,
      }),
    ),
};

/** The official Bedrock and Vertex clients test/llm/official-cloud checks the mocks with (same rules). */
const installCloudClients = {
  name: "the official cloud clients of test/llm/official-cloud",
  run: () =>
    ensureOfficialCloudClients().then(
      () => ({ code: 0, output: "" }),
      (error) => ({
        code: 0,
        output: `warning: could not install the official cloud clients of test/llm/official-cloud (their tests will try again): ${error.message}\n`,
      }),
    ),
};

/** npm scripts (or set-up steps); the steps of one group run in order, the groups at the same time. */
const GROUPS = [
  ["build", "api:check"],
  ["typecheck"],
  ["lint", installTestSdk, installOfficialClients, installCloudClients],
];

/** Runs one npm script, resolving with its exit code and everything it printed. */
function runScript(name) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", name], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function runGroup(steps) {
  for (const step of steps) {
    const { code, output } = typeof step === "string" ? await runScript(step) : await step.run();
    process.stdout.write(output);
    if (code !== 0) {
      const what = typeof step === "string" ? `npm run ${step}` : step.name;
      process.stderr.write(`${what} failed (exit code ${code})\n`);
      return false;
    }
  }
  return true;
}

const results = await Promise.all(GROUPS.map(runGroup));
process.exit(results.every(Boolean) ? 0 : 1);
