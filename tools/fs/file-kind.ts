// What kind of file this is, from its first bytes (and its extension as a hint): text, binary, image, video.
import { stat } from 'node:fs/promises';
import path from 'node:path';

export type FileKind = { kind: 'text' } | { kind: 'binary' } | { kind: 'image' | 'video'; mimeType: string };

export const SNIFF_BYTES = 8192;

const IMAGE_EXTENSIONS: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

const VIDEO_EXTENSIONS: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
};

function startsWith(head: Uint8Array, bytes: readonly number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (head[at + i] !== bytes[i]) return false;
  return true;
}

function ascii(head: Uint8Array, at: number, length: number): string {
  return Buffer.from(head.subarray(at, at + length)).toString('latin1');
}

/** Media type from magic bytes; undefined when the bytes are not a supported image or video. */
export function mediaTypeOf(head: Uint8Array): { kind: 'image' | 'video'; mimeType: string } | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { kind: 'image', mimeType: 'image/png' };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { kind: 'image', mimeType: 'image/jpeg' };
  if (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a') return { kind: 'image', mimeType: 'image/gif' };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WEBP') return { kind: 'image', mimeType: 'image/webp' };
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return { kind: 'video', mimeType: 'video/webm' };
  if (ascii(head, 4, 4) === 'ftyp') {
    const brand = ascii(head, 8, 4);
    return { kind: 'video', mimeType: brand === 'qt  ' ? 'video/quicktime' : 'video/mp4' };
  }
  return undefined;
}

export function hasNulByte(head: Uint8Array): boolean {
  return head.indexOf(0) !== -1;
}

/** Media type from the extension alone (a hint for files whose bytes we cannot recognise). */
export function mediaTypeFromExtension(file: string): { kind: 'image' | 'video'; mimeType: string } | undefined {
  const ext = path.extname(file).toLowerCase();
  if (IMAGE_EXTENSIONS[ext]) return { kind: 'image', mimeType: IMAGE_EXTENSIONS[ext] };
  if (VIDEO_EXTENSIONS[ext]) return { kind: 'video', mimeType: VIDEO_EXTENSIONS[ext] };
  return undefined;
}

export function classifyHead(file: string, head: Uint8Array): FileKind {
  const media = mediaTypeOf(head);
  if (media) return media;
  if (hasNulByte(head)) {
    return mediaTypeFromExtension(file) ?? { kind: 'binary' };
  }
  return { kind: 'text' };
}

/**
 * Why a path cannot be read as a file (a pipe would block the reader forever, a device never ends), or undefined
 * for a regular file or a folder (callers say what to do with a folder).
 */
export async function notAFile(real: string, display: string): Promise<string | undefined> {
  let info;
  try {
    info = await stat(real);
  } catch (error) {
    return `${display} cannot be opened: ${(error as Error).message}`;
  }
  if (info.isFile() || info.isDirectory()) return undefined;
  const what = info.isFIFO() ? 'a named pipe' : info.isSocket() ? 'a socket' : 'a device';
  return `${display} is ${what}, not a file; only regular files can be read.`;
}
