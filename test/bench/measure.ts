/** Samples the process's resident set size while a piece of work runs. */
export async function measure<T>(
  work: () => Promise<T>,
): Promise<{ value: T; wallMs: number; cpuMs: number; rssGrowthMb: number; peakRssMb: number }> {
  global.gc?.();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 100);
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return {
      value,
      wallMs: performance.now() - started,
      cpuMs: (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000,
      rssGrowthMb: (peak - baseline) / 2 ** 20,
      peakRssMb: peak / 2 ** 20,
    };
  } finally {
    clearInterval(timer);
  }
}
