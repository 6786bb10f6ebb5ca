/**
 * Polls (real time) until `probe` answers something other than undefined, or fails naming
 * what it waited for.
 *
 * @example
 * const job = await until('the import job to end', async () => {
 *   const answer = await t.api('GET', `/api/jobs/${jobId}`);
 *   return answer.body.status === 'running' ? undefined : answer.body;
 * });
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 50));
  }
}
