/** Types of `cli-bundle-plugins.mjs`, for the tests that check what the substitutions give. */
import type { Plugin } from "esbuild";

/** chalk's colour level, fixed (the bundle's chalk never asks supports-color). */
export declare const chalkAlwaysColours: Plugin;
/** The highlight.js languages the bundle carries. */
export declare const HIGHLIGHT_LANGUAGES: readonly string[];
/** highlight.js with HIGHLIGHT_LANGUAGES only, refusing an unknown language quietly. */
export declare const commonHighlightLanguages: Plugin;
/** marked-terminal without the emoji names table. */
export declare const noEmojiNames: Plugin;
/** cli-highlight reading highlight.js's HTML without parse5. */
export declare const hljsHtmlWithoutParse5: Plugin;
