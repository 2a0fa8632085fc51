/** Installs this folder's official clients on first use; resolves with its node_modules path. */
export function ensureOfficialCloudClients(): Promise<string>;
