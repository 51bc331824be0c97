// The workspace tools every worker and explorer uses: the file tools (no ports: they read the agent's facts on
// ctx) as named RuntimeTools and as one list, and bash, made with the task store for its background commands.
import type { RuntimeTool } from './contract.js';
import { editTool } from './fs/edit.js';
import { globTool } from './fs/glob.js';
import { grepTool } from './fs/grep.js';
import { readMediaFileTool } from './fs/read-media-file.js';
import { readTool } from './fs/read.js';
import { writeTool } from './fs/write.js';
import type { TaskStore } from './ports.js';
import { createBashTool } from './shell/bash.js';

export { createBashTool, editTool, globTool, grepTool, readMediaFileTool, readTool, writeTool };

/** read, write, edit, grep, glob, read_media_file. read_media_file is for models that take images or video. */
export const fileTools: readonly RuntimeTool[] = [readTool, writeTool, editTool, grepTool, globTool, readMediaFileTool];

/** The file tools, then bash (with background commands in `tasks`; without, bash runs in the foreground only). */
export function createWorkspaceTools(tasks?: TaskStore): RuntimeTool[] {
  return [...fileTools, createBashTool(tasks)];
}
