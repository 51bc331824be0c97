// The user-level list of workspaces that have scheduled tasks (`~/.murmur/workspaces.json`), so one scheduler
// serves them all and a task id can be found from anywhere.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { withLock } from '../host/lock.js';

export interface WorkspaceEntry {
  /** The workspace folder. */
  workspace: string;
  /** Its state folder (`.murmur`, or MURMUR_HOME as it was when the first task was made). */
  home: string;
}

export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME?.trim() || homedir(), '.murmur');
}

export function workspacesFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(userHome(env), 'workspaces.json');
}

export function readWorkspaces(env: NodeJS.ProcessEnv = process.env): WorkspaceEntry[] {
  const file = workspacesFile(env);
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { workspaces?: WorkspaceEntry[] };
    return (parsed.workspaces ?? []).filter((w) => typeof w?.workspace === 'string' && typeof w?.home === 'string');
  } catch {
    return [];
  }
}

/** Adds a workspace to the list (once). */
export function registerWorkspace(entry: WorkspaceEntry, env: NodeJS.ProcessEnv = process.env): void {
  const file = workspacesFile(env);
  const wanted = { workspace: resolve(entry.workspace), home: resolve(entry.home) };
  if (readWorkspaces(env).some((w) => w.home === wanted.home)) return;
  withLock(`${file}.lock`, () => {
    const list = readWorkspaces(env);
    if (list.some((w) => w.home === wanted.home)) return;
    list.push(wanted);
    writeFileAtomic.sync(file, `${JSON.stringify({ workspaces: list }, null, 1)}\n`);
  });
}
