// Placeholder: replaced by the cron benchmark.
export async function benchCron(report: (line: string) => void): Promise<void> {
  report('cron: not built yet');
}
