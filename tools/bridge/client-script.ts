// The murmur-tools command an agent's bash finds first on PATH: a shell script that execs the host's own Node
// on a tiny launcher. The launcher only reads --args-file / --args - input, sends its arguments with the
// lease to the host as one JSON line, and prints the answer: every decision and all formatting are the host's.
// Plain CommonJS with no dependencies, so it starts about as fast as `node -e 0`.

/** The launcher's source, written beside the script in the lease folder. */
export const LAUNCHER_SOURCE = String.raw`'use strict';
const lease = process.env.MURMUR_TOOLS_LEASE;
const endpoint = process.env.MURMUR_TOOLS_ENDPOINT;
function fail(code, text) {
  process.stderr.write('murmur-tools: ' + text + '\n');
  process.exit(code);
}
if (!lease || !endpoint) fail(4, "no lease: MURMUR_TOOLS_LEASE and MURMUR_TOOLS_ENDPOINT are not set (murmur-tools works inside an agent's bash)");
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length - 1; i++) {
  if (argv[i] === '--args-file') {
    let text;
    try {
      text = require('node:fs').readFileSync(argv[i + 1], 'utf8');
    } catch (error) {
      fail(2, '--args-file ' + argv[i + 1] + ': ' + error.message);
    }
    argv.splice(i, 2, '--args', text);
  } else if (argv[i] === '--args' && argv[i + 1] === '-') {
    argv[i + 1] = require('node:fs').readFileSync(0, 'utf8');
  }
}
const socket = require('node:net').connect(endpoint);
let answer = '';
socket.setEncoding('utf8');
socket.on('connect', () => socket.write(JSON.stringify({ lease, argv }) + '\n'));
socket.on('data', (chunk) => {
  answer += chunk;
});
socket.on('error', (error) => fail(4, 'cannot reach the murmur host at ' + endpoint + ': ' + error.message));
socket.on('end', () => {
  let reply;
  try {
    reply = JSON.parse(answer);
  } catch {
    fail(4, 'the murmur host closed the connection without an answer');
  }
  if (reply.stdout) process.stdout.write(reply.stdout);
  if (reply.stderr) process.stderr.write(reply.stderr);
  process.exitCode = reply.exit;
});
`;

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The `murmur-tools` script: the host's Node (not whatever node is first on PATH) on the launcher. */
export function launcherScript(nodePath: string, launcherPath: string): string {
  return `#!/bin/sh\nexec ${shellQuote(nodePath)} ${shellQuote(launcherPath)} "$@"\n`;
}
