// What a person waits for with a big session (issue 31 item 4), measured from outside on a session the scale bench
// just made: `murmur serve` started on its workspace, then the session's page asked for as a browser asks (the
// link's token turned into a cookie, then GET /sessions/ID, whose HTML carries the whole model) — timed from the
// request to the last byte, twice (the first folds the session, the second is the cache); and `murmur report ID
// --html`, timed from spawn to exit, with its file's size. Targets: under 3 s, and a file under 5 MB.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { murmurBin } from './package-bin.js';

const MAIN = murmurBin();

/** `murmur serve --port 0 --no-scheduler --cwd DIR` and its link, once it printed it (the caller stops it). */
export function startConsole(
  cwd: string,
  env: Record<string, string>,
): { serve: ResultPromise; link: Promise<string> } {
  const serve = execa(process.execPath, [MAIN, 'serve', '--port', '0', '--no-scheduler', '--cwd', cwd], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    buffer: false,
  });
  const link = new Promise<string>((resolve, reject) => {
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^murmur console: (\S+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    void serve.then((r) => reject(new Error(`murmur serve exited ${r.exitCode} before printing its link`)));
  });
  return { serve, link };
}

export interface ConsoleOpen {
  /** From spawning `murmur serve` to its link (ms). */
  serveMs: number;
  /** The session page: first ask and second ask (ms), and its size (bytes). */
  firstMs: number;
  againMs: number;
  pageBytes: number;
  reportMs: number;
  reportBytes: number;
  problem?: string;
}

async function timedGet(url: string, cookie: string): Promise<{ ms: number; bytes: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  const body = await response.arrayBuffer();
  return { ms: performance.now() - started, bytes: body.byteLength, status: response.status };
}

/** Opens session `id` in a fresh console on `cwd`, then writes its HTML report; the child processes are stopped. */
export async function openBigSession(cwd: string, env: Record<string, string>, id: string): Promise<ConsoleOpen> {
  const spawned = performance.now();
  const { serve, link: linked } = startConsole(cwd, env);
  try {
    const link = await linked;
    const serveMs = performance.now() - spawned;
    const login = await fetch(link, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const page = `${new URL(link).origin}/sessions/${id}`;
    const first = await timedGet(page, cookie);
    const again = await timedGet(page, cookie);
    const reportFile = join(cwd, '..', 'report.html');
    const started = performance.now();
    const report = await execa(process.execPath, [MAIN, 'report', id, '--html', '-o', reportFile], {
      cwd,
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const reportMs = performance.now() - started;
    const problems = [
      first.status !== 200 ? `the session page answered ${first.status}` : '',
      report.exitCode !== 0 ? `murmur report exited ${report.exitCode}: ${String(report.stderr).slice(-300)}` : '',
    ].filter(Boolean);
    return {
      serveMs,
      firstMs: first.ms,
      againMs: again.ms,
      pageBytes: first.bytes,
      reportMs,
      reportBytes: report.exitCode === 0 ? statSync(reportFile).size : 0,
      ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
    };
  } finally {
    serve.kill('SIGTERM');
    await serve;
  }
}
