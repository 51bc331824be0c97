// Placeholder: replaced by the startup benchmark.
export async function benchStartup(report: (line: string) => void): Promise<void> {
  report('startup: not built yet');
}
