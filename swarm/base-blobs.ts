// The files of the swarm's base commit, read through one long-lived `git cat-file --batch` per repository: an
// item's merge compares what it changed with the base without starting a git process per file or per item.
// cat-file --batch reads objects only: no filter, driver or hook can run from it (git-process.ts's safe settings
// still apply), and a path it cannot name (a newline in it) or an object that is not a file is simply "unknown".
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { baseEnv, safeArgs } from './git-process.js';

/** A file at the base: its bytes, `null` when the base has no such file, undefined when it cannot be told. */
export type BaseFile = Buffer | null | undefined;

interface Waiting {
  resolve(file: BaseFile): void;
}

export class BaseBlobs {
  private child: ChildProcessByStdio<Writable, Readable, null> | undefined;
  private readonly waiting: Waiting[] = [];
  private buffered: Buffer = Buffer.alloc(0);
  private failed = false;

  constructor(
    private readonly root: string,
    private readonly base: string,
  ) {}

  /** The file at `path` (relative to the repository's top, `/`-separated) in the base commit. Never throws. */
  read(path: string): Promise<BaseFile> {
    if (this.failed || /[\n\r]/.test(path) || path === '') return Promise.resolve(undefined);
    const child = this.start();
    if (!child) return Promise.resolve(undefined);
    return new Promise<BaseFile>((resolve) => {
      this.waiting.push({ resolve });
      child.stdin.write(`${this.base}:${path}\n`);
    });
  }

  close(): void {
    this.child?.stdin.end();
    this.child = undefined;
  }

  private start(): ChildProcessByStdio<Writable, Readable, null> | undefined {
    if (this.child) return this.child;
    try {
      const child = spawn('git', [...safeArgs(), 'cat-file', '--batch'], {
        cwd: this.root,
        env: baseEnv(),
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      child.stdout.on('data', (chunk: Buffer) => this.take(chunk));
      const fail = () => this.fail();
      child.on('error', fail);
      child.on('close', fail);
      child.stdin.on('error', fail);
      // It must not keep murmur alive on its own.
      child.unref();
      for (const stream of [child.stdin, child.stdout]) (stream as unknown as { unref?: () => void }).unref?.();
      this.child = child;
      return child;
    } catch {
      this.failed = true;
      return undefined;
    }
  }

  /** The process is gone: whatever waits is unknown, and so is everything asked later. */
  private fail(): void {
    // Gone while in use (not closed by us): nothing more is asked of it.
    if (this.child !== undefined) this.failed = true;
    this.child = undefined;
    for (const waiting of this.waiting.splice(0)) waiting.resolve(undefined);
  }

  /** Answers come in the order asked: `<oid> <type> <size>\n<bytes>\n`, or `<name> missing\n`. */
  private take(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const newline = this.buffered.indexOf(10);
      if (newline < 0) return;
      const header = this.buffered.subarray(0, newline).toString('utf8');
      const next = this.waiting[0];
      const answer = /^[0-9a-f]+ (\S+) (\d+)$/.exec(header);
      if (!answer) {
        // missing (no such file at the base), ambiguous, or anything else: one line, no body.
        this.buffered = this.buffered.subarray(newline + 1);
        this.waiting.shift();
        next?.resolve(header.endsWith(' missing') ? null : undefined);
        continue;
      }
      const size = Number(answer[2]);
      if (this.buffered.length < newline + 1 + size + 1) return;
      const body = Buffer.from(this.buffered.subarray(newline + 1, newline + 1 + size));
      this.buffered = this.buffered.subarray(newline + 1 + size + 1);
      this.waiting.shift();
      next?.resolve(answer[1] === 'blob' ? body : undefined);
    }
  }
}
