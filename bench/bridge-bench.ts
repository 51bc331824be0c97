// Placeholder: replaced by the bridge benchmark.
export async function benchBridge(report: (line: string) => void): Promise<void> {
  report('bridge: not built yet');
}
