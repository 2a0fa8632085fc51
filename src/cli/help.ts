/** The text of `goat --help`. */
export const HELP_TEXT = `Usage: goat [options] [prompt]
       goat <command> [options]    (goat <command> --help for its options)

Commands:
  sessions [--cwd DIR] [--limit N]   List this directory's sessions
  serve [--port N] [--host ADDRESS]  A local web viewer of the sessions
  acp [FLAGS]                        An ACP agent on stdio for editors (Zed, JetBrains, Neovim)
  Durable sessions (DBOS on PostgreSQL, DATABASE_URL):
  worker                      Run queued sessions
  submit PROMPT               Queue a session, then follow it to its end (--detach: just queue it)
  follow WORKFLOW_ID          Follow a session from anywhere
  send [--steer] WORKFLOW_ID TEXT  Send a follow-up (or steering) message
  cancel WORKFLOW_ID          Stop a session
  durable list|show|resume|fork|versions|move|prune|output  Operate them (goat durable --help)

Goat, a coding agent. Without -p in a terminal: an interactive session. With -p: one session, printed.

Print mode:
  -p, --print                 Answer the prompt (argument, or stdin when piped) and exit
  --output-format FORMAT      text (final answer, default) | json (the result) | stream-json (every message, JSON lines)
  --input-format FORMAT       text (default) | stream-json (user messages and control requests as JSON lines)
  --include-partial-messages  With stream-json: also the raw stream events
  --replay-user-messages      With stream-json input and output: echo each user message back (isReplay)
  --verbose                   Interactive: show thinking in full (Ctrl-O toggles); print mode: accepted, no effect

Model and limits:
  --model MODEL               provider/model, e.g. anthropic/claude-sonnet-4-5 (default: $GOAT_MODEL, settings "model")
  --fallback-model MODEL      Used when the model is overloaded or unavailable
  --small-fast-model MODEL    Answers WebFetch's questions about pages (default: $GOAT_SMALL_FAST_MODEL;
                              without one, WebFetch returns the page as markdown)
  --max-turns N               Stop after N model calls
  --max-budget-usd USD        Stop once the run has cost this much
  --thinking MODE             adaptive | enabled | disabled
  --max-thinking-tokens N     A thinking budget (0: off)
  --thinking-display MODE     summarized | omitted thinking text (Anthropic)
  --betas LIST                Anthropic beta features (the anthropic-beta header)
  --effort LEVEL              low | medium | high | xhigh | max
  --json-schema JSON          The final answer is JSON matching this schema (result.structured_output)

Tools and permissions:
  --permission-mode MODE      default | acceptEdits | plan | bypassPermissions | dontAsk
  --permission-prompt-tool stdio  With stream-json input: ask the host (can_use_tool control requests)
  --permission-prompt-tool NAME   A tool (e.g. mcp__approver__ask) answers permission questions
  --permission-prompts none   Deny at once what would ask (the host is never asked)
  --dangerously-skip-permissions  Same as --permission-mode bypassPermissions
  --allow-dangerously-skip-permissions  Allow switching to bypassPermissions later
  --tools LIST                The base set of built-in tools ("" for none, default for all)
  --allowedTools RULES        Rules allowed without asking, comma or space separated (e.g. "Read Bash(git diff:*)")
  --disallowedTools RULES     Tools removed and rules always denied
  --add-dir DIR               Another directory the file tools may use (repeatable)
  --sandbox                   Run Bash in the OS sandbox: writes only in the working and added
                              directories, no network, no processes left behind (see "sandbox" in settings)
  --cwd DIR                   Working directory of the session
  --web-search BACKEND        Offer WebSearch through searxng:URL or brave (BRAVE_API_KEY); default $GOAT_WEB_SEARCH

MCP servers and subagents:
  --mcp-config FILE|JSON      MCP servers in .mcp.json shape (repeatable; after settings and ./.mcp.json)
  --strict-mcp-config         Use only the servers of --mcp-config
  --agents JSON               Subagents for the Task tool: {"name": {"description", "prompt", "tools"?, "model"?}}
  --agent NAME                Run the main thread as that agent (its prompt, tools and model)
  --plugin-dir DIR            A Claude Code plugin folder: its commands, agents, skills, hooks and MCP
                              servers, named <plugin>:<name> (repeatable; --plugin-dir-no-mcp: no servers)

System prompt:
  --system-prompt TEXT        Replace the built-in coding-agent prompt ("" keeps it); AGENTS.md/CLAUDE.md still follow
  --system-prompt-file FILE   The same, read from a file
  --append-system-prompt TEXT Add to the system prompt

Sessions:
  -r, --resume [ID]           Resume a session (without ID, in a terminal: pick one)
  -c, --continue              Resume the latest session in this directory
  --fork-session              With --resume/--continue: continue in a new session id
  --no-session-persistence    Do not write the transcript
  --session-id UUID           The id of a new session
  --resume-session-at UUID    With --resume: resume from this message instead of the latest

Other:
  --settings FILE|JSON        Another settings file, or inline JSON (after $GOAT_HOME/settings.json and .goat/settings.json)
  --setting-sources LIST      Which settings files to read: user,project,local (empty: none)
  --debug                     Trace requests and decisions on stderr
  --debug-file FILE           The same, to a file
  --include-hook-events       With stream-json: hook started / response messages
  -v, --version               Print the Claude Code protocol version Goat speaks, then Goat's own
  -h, --help                  Print this help

Environment: ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL, GOAT_MODEL,
GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL, AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY, OPENAI_API_VERSION, GOAT_OPENAI_WIRE,
AZURE_AI_ENDPOINT, AZURE_AI_API_KEY, AZURE_AI_API_VERSION (azure-foundry/<model>),
Claude Code's cloud switches: CLAUDE_CODE_USE_BEDROCK (AWS_REGION, AWS_PROFILE, AWS_BEARER_TOKEN_BEDROCK, ANTHROPIC_BEDROCK_BASE_URL,
CLAUDE_CODE_SKIP_BEDROCK_AUTH), CLAUDE_CODE_USE_VERTEX (CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, ANTHROPIC_VERTEX_BASE_URL,
CLAUDE_CODE_SKIP_VERTEX_AUTH, GOOGLE_APPLICATION_CREDENTIALS, VERTEX_REGION_<MODEL>), ANTHROPIC_MODEL;
OTEL_TRACES_EXPORTER=otlp and OTEL_EXPORTER_OTLP_* export spans; GOAT_SILENCE_NOTICE_MS, MCP_TIMEOUT,
GOAT_HOME (default ~/.goat), CLAUDE_CONFIG_DIR (default ~/.claude). Settings files (Claude Code's .claude/ and Goat's .goat/, per level)
hold model, permissions, hooks, env and mcpServers. A key is optional when the provider's base URL is on this machine.
A folder's own hooks, MCP servers, allow rules and env apply once the interactive goat has asked and the folder is trusted;
print mode leaves them out of an untrusted folder (its deny and ask rules apply) and says so on stderr, as Claude Code's -p does.
GOAT_REQUIRE_TRUST=1 also starts only approved .mcp.json servers; GOAT_REQUIRE_TRUST=0 applies any folder's configuration unasked.
Under the Claude Agent SDKs (stream-json input) a flag Goat does not know is accepted with one warning.
Exit status: 0 success, 1 error result or usage error, 130 interrupted.
`;
