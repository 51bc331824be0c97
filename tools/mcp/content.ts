// An MCP tools/call result turned into our ToolResult: text and images pass through, embedded resources become
// text (or an image), links and audio become a line saying what they are. Anything malformed is reported as an
// error result, never thrown, since a server's bug must not end the agent's turn.
import type { ToolContent, ToolResult } from '../contract.js';
import { isRecord } from '../util/is-record.js';

type Json = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Rough byte size of base64 data, for "N bytes omitted" notes. */
function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

function resourceLabel(resource: Json): string {
  const uri = str(resource.uri) ?? '(no uri)';
  const mime = str(resource.mimeType);
  return mime ? `${uri} (${mime})` : uri;
}

function mapBlock(block: unknown, index: number): ToolContent | string {
  if (!isRecord(block)) return `content[${index}] is not an object`;
  switch (block.type) {
    case 'text': {
      const text = str(block.text);
      return text === undefined ? `content[${index}]: a text block without text` : { type: 'text', text };
    }
    case 'image': {
      const data = str(block.data);
      const mimeType = str(block.mimeType);
      if (data === undefined || mimeType === undefined)
        return `content[${index}]: an image block needs data and mimeType`;
      return { type: 'image', data, mimeType };
    }
    case 'audio': {
      const data = str(block.data) ?? '';
      return {
        type: 'text',
        text: `[audio ${str(block.mimeType) ?? 'of unknown type'}, ${base64Bytes(data)} bytes, not shown]`,
      };
    }
    case 'resource': {
      const resource = block.resource;
      if (!isRecord(resource)) return `content[${index}]: a resource block without a resource`;
      const text = str(resource.text);
      if (text !== undefined) return { type: 'text', text: `Resource ${resourceLabel(resource)}:\n${text}` };
      const blob = str(resource.blob);
      const mimeType = str(resource.mimeType);
      if (blob !== undefined && mimeType?.startsWith('image/')) return { type: 'image', data: blob, mimeType };
      if (blob !== undefined)
        return {
          type: 'text',
          text: `[binary resource ${resourceLabel(resource)}, ${base64Bytes(blob)} bytes, not shown]`,
        };
      return `content[${index}]: a resource with neither text nor blob`;
    }
    case 'resource_link': {
      const parts = [`Resource link: ${str(block.name) ?? str(block.title) ?? 'resource'} ${resourceLabel(block)}`];
      const description = str(block.description);
      if (description) parts.push(`— ${description}`);
      return { type: 'text', text: parts.join(' ') };
    }
    default:
      return { type: 'text', text: `[content of type ${JSON.stringify(block.type)} that murmur cannot show]` };
  }
}

/**
 * `label` names the tool in messages (`mcp__fs__read_file`). A result with `isError` is an error result; so is a
 * result whose shape is wrong, with a message saying what is wrong.
 */
export function mcpResultToToolResult(result: unknown, label: string): ToolResult {
  if (!isRecord(result)) {
    return {
      content: [
        {
          type: 'text',
          text: `MCP tool "${label}" returned a malformed result: expected an object, got ${result === null ? 'null' : typeof result}`,
        },
      ],
      isError: true,
    };
  }
  const raw = result.content;
  const structured = result.structuredContent;
  if (raw !== undefined && !Array.isArray(raw)) {
    return {
      content: [
        {
          type: 'text',
          text: `MCP tool "${label}" returned a malformed result: "content" must be a list, got ${typeof raw}`,
        },
      ],
      isError: true,
    };
  }
  const content: ToolContent[] = [];
  const problems: string[] = [];
  for (const [index, block] of (raw ?? []).entries()) {
    const mapped = mapBlock(block, index);
    if (typeof mapped === 'string') problems.push(mapped);
    else content.push(mapped);
  }
  if (content.length === 0 && structured !== undefined)
    content.push({ type: 'text', text: JSON.stringify(structured, null, 2) });
  if (problems.length > 0) {
    content.push({
      type: 'text',
      text: `MCP tool "${label}" returned malformed content: ${problems.slice(0, 5).join('; ')}`,
    });
    return { content, isError: true };
  }
  if (content.length === 0)
    content.push({
      type: 'text',
      text: result.isError === true ? `MCP tool "${label}" failed without a message` : '(no output)',
    });
  const out: ToolResult = { content };
  if (result.isError === true) out.isError = true;
  if (structured !== undefined) out.details = { structuredContent: structured };
  return out;
}
