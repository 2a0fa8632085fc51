/**
 * Claude's model ids on the clouds that host it. Anthropic's `claude-sonnet-4-5` is
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` on Bedrock (an inference profile of the region's
 * geography; the newer models take only those) and `claude-sonnet-4-5@20250929` on Vertex. Users can
 * write either form after `bedrock/` or `vertex/`; the catalog finds prices for both.
 */

/** The release each short Claude name stands for. */
const RELEASES: Readonly<Record<string, string>> = {
  "claude-opus-4-5": "20251101",
  "claude-opus-4-1": "20250805",
  "claude-opus-4": "20250514",
  "claude-sonnet-4-5": "20250929",
  "claude-sonnet-4": "20250514",
  "claude-3-7-sonnet": "20250219",
  "claude-haiku-4-5": "20251001",
  "claude-3-5-haiku": "20241022",
};

/** True for a Claude model id in any of its forms (Anthropic, Bedrock, Vertex). */
export function isClaudeModel(id: string): boolean {
  return /(?:^|\.)(?:anthropic\.)?claude-/i.test(id);
}

/** The Bedrock geography prefix for a region: `us`, `eu` or `apac`. */
function bedrockGeography(region: string): string {
  if (region.startsWith("eu-")) return "eu";
  if (region.startsWith("ap-")) return "apac";
  return "us";
}

/**
 * The Bedrock model id for what the user wrote: a short or dated Claude name becomes the region's
 * cross-region inference profile; anything else (a full Bedrock id, an ARN, another vendor's model)
 * is sent as written.
 */
export function bedrockModelId(model: string, region: string): string {
  const dated = /^(claude-[a-z0-9-]+?)(?:-(\d{8}))?$/i.exec(model);
  if (!dated) return model;
  const release = dated[2] ?? RELEASES[dated[1].toLowerCase()];
  if (!release) return model;
  return `${bedrockGeography(region)}.anthropic.${dated[1]}-${release}-v1:0`;
}

/** The Vertex model id: `claude-sonnet-4-5` → `claude-sonnet-4-5@20250929`; other ids unchanged. */
export function vertexModelId(model: string): string {
  const dated = /^(claude-[a-z0-9-]+?)(?:-(\d{8}))?$/i.exec(model);
  if (!dated) return model;
  const release = dated[2] ?? RELEASES[dated[1].toLowerCase()];
  return release ? `${dated[1]}@${release}` : model;
}

/**
 * The id a catalog knows a cloud id by: `us.anthropic.claude-x-20250929-v1:0` and `claude-x@20250929`
 * both give `claude-x-20250929`; a Bedrock inference profile of another vendor's model loses its
 * geography (`us.amazon.nova-pro-v1:0` → `amazon.nova-pro-v1:0`); other ids come back unchanged.
 */
export function baseModelId(id: string): string {
  const model = id.replace(/^(?:us|eu|apac|global|jp|au|us-gov)\.(?=[a-z]+\.)/i, "");
  if (!/^anthropic\./i.test(model)) return model.replace(/@(\d{8})$/, "-$1").replace(/@default$/, "");
  return model.replace(/^anthropic\./i, "").replace(/-v\d+(?::\d+)?$/i, "");
}

/**
 * Claude Code's per-model Vertex region variables: with `CLOUD_ML_REGION=global`, a model that Vertex
 * serves only regionally is sent to the region its variable names. The names are Claude Code's own
 * (its Vertex and environment-variable documentation), including their uneven order of words.
 */
const VERTEX_REGION_VARIABLES: ReadonlyArray<readonly [family: string, variable: string]> = [
  ["claude-haiku-4-5", "VERTEX_REGION_CLAUDE_HAIKU_4_5"],
  ["claude-3-5-haiku", "VERTEX_REGION_CLAUDE_3_5_HAIKU"],
  ["claude-3-5-sonnet", "VERTEX_REGION_CLAUDE_3_5_SONNET"],
  ["claude-3-7-sonnet", "VERTEX_REGION_CLAUDE_3_7_SONNET"],
  ["claude-opus-4-1", "VERTEX_REGION_CLAUDE_4_1_OPUS"],
  ["claude-opus-4", "VERTEX_REGION_CLAUDE_4_0_OPUS"],
  ["claude-sonnet-4-6", "VERTEX_REGION_CLAUDE_4_6_SONNET"],
  ["claude-sonnet-4-5", "VERTEX_REGION_CLAUDE_4_5_SONNET"],
  ["claude-sonnet-4", "VERTEX_REGION_CLAUDE_4_0_SONNET"],
];

/**
 * The region override for a Vertex model id (`claude-3-5-haiku@20241022`, `claude-opus-4`), from
 * its `VERTEX_REGION_*` variable; undefined when the model has none or it is unset. A family matches
 * only whole: `claude-opus-4` is not `claude-opus-4-5`'s.
 */
export function vertexRegionOverride(
  modelId: string,
  env: Record<string, string | undefined>,
): string | undefined {
  const model = modelId.toLowerCase();
  for (const [family, variable] of VERTEX_REGION_VARIABLES) {
    if (!model.startsWith(family)) continue;
    const rest = model.slice(family.length);
    // The family, then nothing, its release (`@20241022`, `-20241022`) or a version suffix (`-v2`).
    if (rest !== "" && !/^(?:@|-\d{8}|-v\d)/.test(rest)) continue;
    return env[variable] || undefined;
  }
  return undefined;
}
