// The sandbox suites: whether bubblewrap can run here (in CI its absence is a failure, elsewhere the suite is
// skipped with the package's name), a folder of fake tools for PATH, and the scripted agents' probe commands.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Whether bwrap can make namespaces here; in CI (or with MURMUR_REQUIRE_SYSTEM_DEPS) its absence is a failure. */
export function bwrapAvailable(): boolean {
  const probe = spawnSync(
    'bwrap',
    ['--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'],
    {
      encoding: 'utf8',
    },
  );
  const works = probe.status === 0;
  if (!works && (process.env.CI || process.env.MURMUR_REQUIRE_SYSTEM_DEPS)) {
    throw new Error(
      `bubblewrap cannot run here (${probe.error?.message ?? probe.stderr.trim()}): install the Debian package bubblewrap (apt-get install -y bubblewrap)`,
    );
  }
  if (!works) console.warn('skipping the sandbox tests: bwrap does not work here (Debian package bubblewrap)');
  return works;
}

/** A PATH folder with node, git and the shells but no bwrap, plus `bwrap` as given (a script), if any. */
export function pathWithout(dir: string, fakeBwrap?: string): string {
  const bin = path.join(dir, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of ['git', 'bash', 'sh', 'true']) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, path.join(bin, tool));
  }
  symlinkSync(process.execPath, path.join(bin, 'node'));
  if (fakeBwrap !== undefined) {
    writeFileSync(path.join(bin, 'bwrap'), fakeBwrap);
    chmodSync(path.join(bin, 'bwrap'), 0o755);
  }
  return bin;
}

/** What bwrap says where a container's seccomp profile or the kernel forbids unprivileged namespaces. */
export const NO_NAMESPACES_BWRAP =
  '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n';

/** Shell that prints `name=value` lines about what the command can reach; `outside` is a host folder not under /tmp. */
export function probeCommand(port: number): string {
  return [
    '{',
    // A host folder outside the workspace (read-only) and the host's /tmp (a private one here).
    'touch "$OUTSIDE/written" 2>/dev/null && echo outside=written || echo outside=refused;',
    'touch "$HOST_TMP/written" 2>/dev/null && echo host_tmp=written || echo host_tmp=refused;',
    'test -e "$HOME/.ssh/id_ed25519" && echo ssh=visible || echo ssh=hidden;',
    'echo murmur_entries=$(ls -A .murmur 2>/dev/null | wc -l);',
    'echo procs=$(ls -d /proc/[0-9]* | wc -l);',
    `echo host_bin=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -c 'bundle/mai[n].js');`,
    `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('net=connected'); process.exit(0); }).on('error', (e) => { console.log('net=' + e.code); })";`,
    'murmur-tools tools > /dev/null 2>&1 && echo tools=ok || echo tools=failed;',
    'echo inside > made.txt && echo workspace=written;',
    '} > probe.txt 2>&1',
  ].join(' ');
}

/** The `name=value` lines of probe.txt as a record. */
export function probeResult(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^(\w+)=(.*)$/.exec(line.trim());
    if (match) result[match[1]!] = match[2]!;
  }
  return result;
}
