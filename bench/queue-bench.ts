// Placeholder: replaced by the queue benchmark.
export async function benchQueue(report: (line: string) => void): Promise<void> {
  report('queue: not built yet');
}
