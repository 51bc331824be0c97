// Reads one murmur-tools request off a connection as its bytes arrive, in linear time: the header's line end is
// looked for in each new chunk only, chunks are kept in an array and joined once, and the size limit is checked
// as bytes arrive (and against the size the header declares), so an oversized call is refused at once.
import { EXIT, MAX_REQUEST_BYTES, tooLargeMessage, type BridgeAnswer, type BridgeRequestHeader } from './protocol.js';

export type ReadStep =
  { kind: 'more' } | { kind: 'request'; argv: string[] } | { kind: 'refused'; answer: BridgeAnswer };

/** Decides on the lease as soon as the header is read (before any attached bytes): a refusal, or undefined to go on. */
export type AdmitLease = (lease: string) => BridgeAnswer | undefined;

const NEWLINE = 0x0a;

function invalid(reason: string): ReadStep {
  return {
    kind: 'refused',
    answer: { exit: EXIT.usage, stderr: `murmur-tools: the request was not valid: ${reason}.\n` },
  };
}

/** The header as sent, checked: argv all strings, each attachment a slot of argv and a byte count. */
function parseHeader(text: string): BridgeRequestHeader | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'its header is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'its header is not a JSON object';
  const { lease, argv, attached } = value as Record<string, unknown>;
  if (!Array.isArray(argv) || !argv.every((word) => typeof word === 'string')) return 'argv is not a list of strings';
  const header: BridgeRequestHeader = { lease: typeof lease === 'string' ? lease : '', argv: argv as string[] };
  if (attached === undefined) return header;
  const slots = Array.isArray(attached) ? attached : [];
  const fits = (pair: unknown) =>
    Array.isArray(pair) &&
    pair.length === 2 &&
    Number.isSafeInteger(pair[0]) &&
    pair[0] >= 0 &&
    pair[0] < argv.length &&
    Number.isSafeInteger(pair[1]) &&
    pair[1] >= 0;
  if (!Array.isArray(attached) || !slots.every(fits)) return 'attached is not a list of [argv index, byte count]';
  header.attached = slots as Array<[number, number]>;
  return header;
}

export class RequestReader {
  private chunks: Buffer[] = [];
  /** Bytes held in `chunks`. */
  private held = 0;
  private header: BridgeRequestHeader | undefined;
  /** Attached bytes the header declares. */
  private expected = 0;
  /** Bytes examined for the header's line end (each at most once: the framing stays linear). */
  scanned = 0;

  constructor(private readonly admit: AdmitLease) {}

  push(chunk: Buffer): ReadStep {
    if (!this.header) {
      const end = chunk.indexOf(NEWLINE);
      this.scanned += end === -1 ? chunk.length : end + 1;
      if (end === -1) {
        this.keep(chunk);
        // Refused as soon as the limit is passed, not after reading the rest.
        return this.held > MAX_REQUEST_BYTES ? this.tooLarge(this.held, true) : { kind: 'more' };
      }
      const headerBytes = this.held + end + 1;
      if (headerBytes > MAX_REQUEST_BYTES) return this.tooLarge(headerBytes);
      const text = Buffer.concat([...this.chunks, chunk.subarray(0, end)]).toString('utf8');
      const header = parseHeader(text);
      if (typeof header === 'string') return invalid(header);
      const refusal = this.admit(header.lease);
      if (refusal) return { kind: 'refused', answer: refusal };
      this.header = header;
      this.expected = (header.attached ?? []).reduce((sum, [, bytes]) => sum + bytes, 0);
      if (headerBytes + this.expected > MAX_REQUEST_BYTES) return this.tooLarge(headerBytes + this.expected);
      this.chunks = [];
      this.held = 0;
      chunk = chunk.subarray(end + 1);
    }
    this.keep(chunk);
    if (this.held < this.expected) return { kind: 'more' };
    return { kind: 'request', argv: this.argv(this.header) };
  }

  private keep(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.held += chunk.length;
  }

  private tooLarge(bytes: number, atLeast = false): ReadStep {
    return { kind: 'refused', answer: { exit: EXIT.usage, stderr: tooLargeMessage(bytes, atLeast) } };
  }

  /** argv with each attached slot filled from the bytes that followed the header, in order. */
  private argv(header: BridgeRequestHeader): string[] {
    const argv = [...header.argv];
    const body = Buffer.concat(this.chunks, this.held);
    let offset = 0;
    for (const [index, bytes] of header.attached ?? []) {
      argv[index] = body.toString('utf8', offset, offset + bytes);
      offset += bytes;
    }
    return argv;
  }
}
