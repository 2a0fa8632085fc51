/**
 * The words of the summary request. The summary replaces the older part of a conversation for an
 * agent that keeps working, so it asks for what that agent needs to continue without re-reading
 * anything: the goal, the user's own words, decisions, state, files, errors and next steps.
 */

/** System prompt of the summary call. */
export const SUMMARY_SYSTEM_PROMPT = `You write handoff summaries of conversations between a user and an AI coding agent.
The agent's context window is full. Your summary replaces the older part of the conversation, and the agent will continue the work from your summary plus the most recent messages, which it still sees verbatim.
Be precise and concrete: exact file paths, function and variable names, commands, error messages, numbers and decisions. Never invent anything that is not in the transcript. Do not continue the conversation, answer questions in it, or call tools; only write the summary.`;

/** The sections the summary must have, in order. */
export const SUMMARY_TEMPLATE = `## Goal
What the user wants overall, and the current task within it.

## User instructions
Every explicit instruction, constraint and preference the user stated (quote them when the wording matters), and every user message that was not a tool result, briefly, in order. Include corrections the user made to the agent.

## Key decisions
Technical decisions made and why (approaches chosen, approaches rejected and the reason).

## Progress and current state
- Done: what is finished and verified.
- In progress: what was being worked on when the transcript ends, and exactly where it stopped.
- Blocked: anything waiting on the user or on an unresolved problem.

## Files
Each file read, created or changed: its path, whether it was read or changed, what changed and why, and key details the agent will need (signatures, line ranges, config values).

## Errors and fixes
Errors met (commands, test failures, tool errors), their cause, and how each was fixed or whether it is still open.

## Next steps
The pending tasks, in order, that follow directly from the user's requests. Say what to do next, first.

## Critical context
Anything else needed to continue: environment facts, commands that work, names, ids, values to reuse.`;

/** What the summary request's user message says, around the transcript. */
export function buildSummaryPrompt(
  transcript: string,
  options: { hasEarlierSummary: boolean; instructions?: string },
): string {
  const parts = [
    "Summarize the conversation transcript below so the agent can continue the work.",
    "<transcript>",
    transcript,
    "</transcript>",
  ];
  if (options.hasEarlierSummary) {
    parts.push(
      "The transcript starts with an earlier summary of the conversation before it. Merge it into your summary: carry forward every instruction, decision, file and open task that still matters, and update what has changed since.",
    );
  }
  parts.push(
    "The transcript may end in the middle of a task; the messages after it are kept verbatim, so describe precisely where the work stopped.",
    `Write the summary in Markdown with exactly these sections (write "None." for an empty one):\n\n${SUMMARY_TEMPLATE}`,
  );
  const instructions = options.instructions?.trim();
  if (instructions) parts.push(`Additional instructions from the user for this summary:\n${instructions}`);
  parts.push('Reply with the summary only, starting with "## Goal".');
  return parts.join("\n\n");
}

/** The summary from the model's answer: its text, without a `<summary>` wrapper if it added one. */
export function extractSummary(text: string): string {
  const wrapped = /<summary>([\s\S]*?)<\/summary>/i.exec(text);
  return (wrapped ? wrapped[1] : text).trim();
}
