// The workspace tools every worker and explorer uses, as named RuntimeTools and as one list.
import type { RuntimeTool } from './contract.js';
import { editTool } from './fs/edit.js';
import { globTool } from './fs/glob.js';
import { grepTool } from './fs/grep.js';
import { readMediaFileTool } from './fs/read-media-file.js';
import { readTool } from './fs/read.js';
import { writeTool } from './fs/write.js';
import { bashTool } from './shell/bash.js';

export { bashTool, editTool, globTool, grepTool, readMediaFileTool, readTool, writeTool };

/** read, write, edit, grep, glob, read_media_file, bash. read_media_file is for models that take images or video. */
export const workspaceTools: readonly RuntimeTool[] = [readTool, writeTool, editTool, grepTool, globTool, readMediaFileTool, bashTool];
