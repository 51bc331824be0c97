// The items of `--glob PATTERN`: the files matching it under the workspace, sorted, without dependencies, git's
// folder or murmur's state. `murmur swarm` and the web console's live count read the same list.

export const GLOB_IGNORED = ['**/node_modules/**', '**/.git/**', '.murmur/**'];

export async function globItems(pattern: string, cwd: string): Promise<string[]> {
  // Loaded here, not at start-up: only `--glob` needs it.
  const { glob } = await import('tinyglobby');
  const files = await glob(pattern, { cwd, onlyFiles: true, ignore: GLOB_IGNORED });
  return files.sort();
}
