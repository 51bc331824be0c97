// Folders whose files are written on first use: a swarm worktree made without a checkout (swarm/lazy-worktree.ts)
// has no file until a tool asks for one, so an item that reads and edits a few files in a big repository never
// pays for writing all the others. A tool that names its file (read, write, edit) gets that file; any other tool
// that may look at the folder as a whole (a shell, grep, glob, an MCP server…) gets every file first.

/** A folder filled on demand: `file` writes one path (relative, `/`-separated) when it is missing, `all` the rest. */
export interface LazyTree {
  file(rel: string): Promise<void>;
  all(): Promise<void>;
}

/** Tools that touch no file but the one their `path` names (resolved through resolveToolPath). */
const PATH_TOOLS = new Set(['read', 'write', 'edit', 'read_media_file']);

/** Tools that do not look at the workspace's files at all (their subagents ask for files themselves). */
const NO_FILES = new Set([
  ...['todo_list', 'ask_user_question', 'fetch_url', 'web_search', 'final_answer', 'tool_search'],
  ...['agent', 'agent_swarm', 'task_list', 'task_output', 'task_stop', 'set_timer'],
  ...['enter_plan_mode', 'exit_plan_mode', 'create_scheduled_task'],
]);

/** The lazy folders of this process, by real absolute path. */
const trees = new Map<string, LazyTree>();

/** `root` fills on demand until the returned function is called (it is complete then, or gone). */
export function registerLazyTree(root: string, tree: LazyTree): () => void {
  trees.set(root, tree);
  return () => {
    if (trees.get(root) === tree) trees.delete(root);
  };
}

/** The lazy folder holding `abs` (itself or an ancestor), with the path inside it. */
function treeHolding(abs: string): { tree: LazyTree; rel: string } | undefined {
  if (trees.size === 0) return undefined;
  for (const [root, tree] of trees) {
    if (abs === root) return { tree, rel: '' };
    if (abs.startsWith(`${root}/`)) return { tree, rel: abs.slice(root.length + 1) };
  }
  return undefined;
}

/** Before a path tool touches `abs`: its file is written when a lazy folder holds it (the folder whole for a folder). */
export async function fillPath(abs: string): Promise<void> {
  const held = treeHolding(abs);
  if (held) await held.tree.file(held.rel);
}

/**
 * Before tool `name` runs for an agent working in `root`: every file is written when the tool may look beyond the
 * path it names. Undefined (nothing to wait for) in the usual case of no lazy folder.
 */
export function fillBefore(root: string | undefined, name: string): Promise<void> | undefined {
  if (root === undefined || trees.size === 0 || PATH_TOOLS.has(name) || NO_FILES.has(name)) return undefined;
  return treeHolding(root)?.tree.all();
}
