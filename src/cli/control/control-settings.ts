/**
 * The settings control requests: `apply_flag_settings` (the session's flag layer, see
 * `agent/flag-settings.ts`) and `update_settings` (a settings file, see `settings-update.ts`).
 */
import { FlagSettingsError } from "../../index.js";
import type { ControlSubtypeHandler } from "./control-context.js";
import { ControlError, isRecord } from "./control-protocol.js";
import { updateSettingsFile } from "./settings-update.js";

/** The settings subtypes, by name. */
export const SETTINGS_HANDLERS: Record<string, ControlSubtypeHandler> = {
  async apply_flag_settings(request, q) {
    const settings = request.settings;
    if (!isRecord(settings)) throw new Error('apply_flag_settings: "settings" must be an object');
    try {
      await q.applyFlagSettings(settings);
    } catch (error) {
      // Claude Code's codes, so a host can tell "not supported" from "bad value"; nothing was changed.
      if (error instanceof FlagSettingsError) throw new ControlError(error.message, error.code);
      throw error;
    }
    return {};
  },
  async update_settings(request, _q, ctx) {
    const options = ctx.options();
    await updateSettingsFile(request.source, request.settings, {
      cwd: options.cwd ?? process.cwd(),
      env: options.env ?? process.env,
      settingSources: ctx.settingSources,
    });
    return {};
  },
};
