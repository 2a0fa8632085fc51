/**
 * The ExitPlanMode tool (Claude Code's): in plan mode the model presents its plan with it, and the
 * user approves or rejects it. The asking and the switch out of plan mode are the permission engine's
 * (it treats this tool specially); by the time `execute` runs, the user has approved.
 */
import { defineTool } from "./define-tool.js";
import { jsonSchema } from "./tool-schema.js";

/** Input of the ExitPlanMode tool. */
export interface ExitPlanModeInput {
  plan: string;
}

const inputSchema = jsonSchema<ExitPlanModeInput>(
  {
    type: "object",
    properties: {
      plan: {
        type: "string",
        minLength: 1,
        description:
          "The plan you came up with, that you want to run by the user for approval. Markdown; concise.",
      },
    },
    required: ["plan"],
  },
  { removeAdditional: true },
);

const DESCRIPTION = `Use this tool when you are in plan mode and have finished planning and are ready to code. This will prompt the user to approve your plan, and on approval leave plan mode.
- Only use it for tasks that need writing code or changing things; for research tasks (reading files, understanding the codebase) just answer.
- Call it once the plan is complete and unambiguous; put the whole plan in \`plan\`.
- If the user rejects the plan, you stay in plan mode: revise it as they ask and call this tool again.`;

/** Claude Code's `ExitPlanMode` tool. */
export const exitPlanModeTool = defineTool<ExitPlanModeInput, { plan: string }>({
  name: "ExitPlanMode",
  description: DESCRIPTION,
  inputSchema,
  // It changes only the session's mode, and the engine guards that: no file or process is touched.
  sideEffect: "none",
  execute: (input) => ({
    content:
      "User has approved your plan. You can now start coding. Start with updating your todo list if applicable.",
    details: { plan: input.plan },
  }),
});
