/** Goat's version, recorded in session files and `system/init`. Kept in step with package.json by a test. */
export const GOAT_VERSION = "0.1.0";
