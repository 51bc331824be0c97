// read_media_file: an image or a video from the workspace, sent to the model as a media block.
import { Type } from '@sinclair/typebox';
import { defineRuntimeTool, errorResult, type ToolContext, type ToolResult, type ToolTraits } from '../contract.js';
import { isRecord } from '../util/is-record.js';
import { mediaTypeOf, SNIFF_BYTES } from './file-kind.js';
import { renameArgument } from './tool-args.js';
import { openForReading } from './open-for-reading.js';

export const MEDIA_MAX_BYTES = 100 * 1024 * 1024;

export const readMediaFileParameters = Type.Object({
  path: Type.String({ description: 'Image (png, jpg, gif, webp) or video (mp4, webm, mov) file in the workspace.' }),
});

function prepareMediaArguments(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const args = { ...raw };
  renameArgument(args, 'file_path', 'path');
  return args;
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export async function executeReadMediaFile(ctx: ToolContext, input: { path: string }): Promise<ToolResult> {
  const opened = await openForReading(ctx, input.path);
  if (!opened.ok) return errorResult(opened.error);
  const { file, handle } = opened;
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return errorResult(`${file.display} is a folder, not a file.`);
    if (stats.size > MEDIA_MAX_BYTES) {
      return errorResult(
        `${file.display} is ${sizeText(stats.size)}; read_media_file takes files up to ${MEDIA_MAX_BYTES / (1024 * 1024)} MB.`,
      );
    }
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stats.size));
    if (head.length > 0) await handle.read(head, 0, head.length, 0);
    const media = mediaTypeOf(head);
    if (!media) {
      return errorResult(
        `${file.display} is not a supported image (png, jpg, gif, webp) or video (mp4, webm, mov); for text files use read.`,
      );
    }
    const data = await handle.readFile();
    return {
      content: [
        {
          type: 'text',
          text: `${media.kind === 'image' ? 'Image' : 'Video'} ${file.display} (${media.mimeType}, ${sizeText(stats.size)}):`,
        },
        { type: media.kind, data: data.toString('base64'), mimeType: media.mimeType },
      ],
      details: { path: file.display, mimeType: media.mimeType, bytes: stats.size },
    };
  } finally {
    await handle.close();
  }
}

/** read_media_file's traits: it only reads; a rule's parentheses match the path it reads. */
export const READ_MEDIA_FILE_TRAITS = { readOnly: true, ruleArgument: 'path' } as const satisfies ToolTraits;

export const readMediaFileTool = defineRuntimeTool({
  def: {
    ...READ_MEDIA_FILE_TRAITS,
    name: 'read_media_file',
    description:
      'Look at an image (png, jpg, gif, webp) or a video (mp4, webm, mov) from the workspace, up to 100 MB: it is sent ' +
      'to you as media. For text files use read.',
    parameters: readMediaFileParameters,
    prepareArguments: prepareMediaArguments,
    executionMode: 'parallel',
  },
  execute: (ctx, input) => executeReadMediaFile(ctx, input),
});
