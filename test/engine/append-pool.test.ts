// The append pool every run's files go through: at most maxOpen files open at once however many are written,
// each file's lines in the order appended, a shortage of handles waited out, and a write that fails for good
// reported (naming the file and the error) instead of dropped silently. The disk is a port: these tests hand in
// one that counts, delays or fails, over a real temp folder.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeAppendFs, type AppendFs } from '../../orchestrator/append-fs.js';
import { AppendPool } from '../../orchestrator/append-pool.js';
import { workspacePerTest } from './helpers.js';

const workspace = workspacePerTest('murmur-append-');
const NO_WAIT = { attempts: 5, baseDelayMs: 1, maxDelayMs: 1, wait: () => Promise.resolve() };

function errno(code: string, call: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated, ${call} '${file}'`), { code });
}

/** The real disk, slowed a little and counting the files open at once. */
function countingFs(): AppendFs & { peak: () => number } {
  let open = 0;
  let peak = 0;
  const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
  return {
    peak: () => peak,
    open: async (file) => {
      const fd = await nodeAppendFs.open(file);
      peak = Math.max(peak, ++open);
      await tick();
      return fd;
    },
    write: async (fd, data, offset, length) => {
      await tick();
      return nodeAppendFs.write(fd, data, offset, length);
    },
    close: async (fd) => {
      await nodeAppendFs.close(fd);
      open--;
    },
    mkdir: nodeAppendFs.mkdir,
  };
}

describe('the append pool', () => {
  it('keeps at most maxOpen files open while 500 files are written, each in order and whole', async () => {
    const fs = countingFs();
    const pool = new AppendPool({ fs, maxOpen: 8 });
    const file = (i: number) => path.join(workspace.dir, 'agents', `a-${i}`, 'transcript.jsonl');
    for (let line = 0; line < 3; line++) for (let i = 0; i < 500; i++) pool.append(file(i), `${i}.${line}\n`);
    const more = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (let i = 0; i < 500; i++) pool.append(file(i), `${i}.3\n`);
    })();
    await more;
    const losses = await Promise.all(Array.from({ length: 500 }, (_, i) => pool.written(file(i))));
    expect(losses.filter(Boolean)).toEqual([]);
    for (let i = 0; i < 500; i++) expect(readFileSync(file(i), 'utf8')).toBe(`${i}.0\n${i}.1\n${i}.2\n${i}.3\n`);
    expect(fs.peak()).toBeLessThanOrEqual(8);
    expect(pool.peakOpen).toBeLessThanOrEqual(8);
  });

  it('waits out EMFILE on open and ENFILE on write, and continues a short write where it stopped', async () => {
    let opens = 0;
    let writes = 0;
    const fs: AppendFs = {
      ...nodeAppendFs,
      open: (file) => (++opens <= 3 ? Promise.reject(errno('EMFILE', 'open', file)) : nodeAppendFs.open(file)),
      write: (fd, data, offset, length) => {
        writes++;
        if (writes === 1) return Promise.reject(errno('ENFILE', 'write', 'log'));
        // Two bytes at a time: the rest follows, nothing is written twice.
        return nodeAppendFs.write(fd, data, offset, Math.min(length, 2));
      },
    };
    const pool = new AppendPool({ fs, retry: { ...NO_WAIT, attempts: 4 } });
    const file = path.join(workspace.dir, 'events.jsonl');
    pool.append(file, 'first line\n');
    pool.append(file, 'second line\n');
    expect(await pool.written(file)).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe('first line\nsecond line\n');
    expect(opens).toBe(4);
  });

  it('reports a write that fails for good, naming the file and the error, and takes no more lines for it', async () => {
    const broken = path.join(workspace.dir, 'agents', 'a-2', 'transcript.jsonl');
    const fs: AppendFs = {
      ...nodeAppendFs,
      open: (file) => (file === broken ? Promise.reject(errno('EMFILE', 'open', file)) : nodeAppendFs.open(file)),
    };
    const pool = new AppendPool({ fs, retry: NO_WAIT });
    const fine = path.join(workspace.dir, 'agents', 'a-1', 'transcript.jsonl');
    pool.append(fine, 'kept\n');
    pool.append(broken, 'lost\n');
    expect(await pool.written(fine)).toBeUndefined();
    const loss = await pool.written(broken);
    expect(loss).toEqual({ path: broken, error: `EMFILE: simulated, open '${broken}'` });
    pool.append(broken, 'after the loss\n');
    expect(pool.busy(broken)).toBe(false);
    expect(pool.lossesUnder(workspace.dir)).toEqual([loss]);
    expect(pool.lossesUnder(`${workspace.dir}-other`)).toEqual([]);
    pool.forgetUnder(workspace.dir);
    expect(pool.lossOf(broken)).toBeUndefined();
  });

  it('does not retry an error that is not a shortage (ENOSPC): it is a loss at once', async () => {
    let writes = 0;
    const fs: AppendFs = {
      ...nodeAppendFs,
      write: () => {
        writes++;
        return Promise.reject(errno('ENOSPC', 'write', 'x'));
      },
    };
    const pool = new AppendPool({ fs, retry: NO_WAIT });
    const file = path.join(workspace.dir, 'out.log');
    pool.append(file, 'x\n');
    expect((await pool.written(file))?.error).toMatch(/^ENOSPC/);
    expect(writes).toBe(1);
  });
});

describe('the backlog', () => {
  it('gives room at once while it is under the limit, and makes producers wait past it until the disk catches up', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The disk takes the first write only once the test lets it.
    const fs: AppendFs = {
      ...nodeAppendFs,
      write: async (fd, data, offset, length) => {
        await gate;
        return nodeAppendFs.write(fd, data, offset, length);
      },
    };
    const pool = new AppendPool({ fs, backlogLimit: 10 });
    const file = path.join(workspace.dir, 'lines.jsonl');
    pool.append(file, '12345\n');
    expect(pool.room()).toBeUndefined();
    pool.append(file, '67890\n');
    const waiting = pool.room();
    expect(waiting).toBeInstanceOf(Promise);
    let roomy = false;
    void waiting!.then(() => (roomy = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(roomy).toBe(false);
    release();
    await waiting;
    await pool.written(file);
    expect(pool.room()).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe('12345\n67890\n');
  });

  it('lets producers go on when a file is lost: what it could not write leaves the backlog', async () => {
    const fs: AppendFs = {
      ...nodeAppendFs,
      write: () => Promise.reject(errno('ENOSPC', 'write', 'x')),
    };
    const pool = new AppendPool({ fs, backlogLimit: 4, retry: NO_WAIT });
    const file = path.join(workspace.dir, 'full.jsonl');
    pool.append(file, 'more than four\n');
    const waiting = pool.room();
    expect(waiting).toBeInstanceOf(Promise);
    expect((await pool.written(file))?.error).toMatch(/^ENOSPC/);
    await waiting;
    expect(pool.room()).toBeUndefined();
  });

  it('tells a waiter once what was appended before it asked is written, while lines keep coming', async () => {
    const pool = new AppendPool({ fs: countingFs() });
    const file = path.join(workspace.dir, 'busy.jsonl');
    let line = 0;
    pool.append(file, `${line++}\n`);
    let told = false;
    const asked = line;
    void pool.written(file).then(() => (told = true));
    // A writer that is never idle: a line every millisecond until the waiter is told.
    while (!told && line < 2000) {
      pool.append(file, `${line++}\n`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(told).toBe(true);
    expect(pool.busy(file)).toBe(true);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(asked);
    await pool.written(file);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number)).toEqual(
      Array.from({ length: line }, (_, i) => i),
    );
  });
});
