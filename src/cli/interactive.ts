export async function runInteractive(_a: unknown, _c: unknown): Promise<number> {
  return 1;
}
