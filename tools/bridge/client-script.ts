// The murmur-tools command an agent's bash finds first on PATH: a shell script that execs the host's own Node
// on a tiny launcher. The launcher only reads --args-file / --args - input, refuses a call past the size limit
// before sending anything, sends its arguments with the lease to the agent's endpoint (protocol.ts), and prints
// the answer: every decision and all formatting are the host's.
// Plain CommonJS with no dependencies, so it starts about as fast as `node -e 0`.
import { MAX_REQUEST_BYTES, readableBytes, tooLargeMessage } from './protocol.js';

// The refusal for size, split around the byte count, so the launcher says exactly what the host would.
const SIZE_MARK = 987654321;
const [TOO_LARGE_BEFORE, TOO_LARGE_AFTER] = tooLargeMessage(SIZE_MARK).split(
  `${SIZE_MARK} bytes (${readableBytes(SIZE_MARK)})`,
);

/** The launcher's source, written beside the script in the lease folder. */
export const LAUNCHER_SOURCE = String.raw`'use strict';
const fs = require('node:fs');
const LIMIT = ${MAX_REQUEST_BYTES};
const lease = process.env.MURMUR_TOOLS_LEASE;
const endpoint = process.env.MURMUR_TOOLS_ENDPOINT;
function fail(code, text) {
  process.stderr.write('murmur-tools: ' + text + '\n');
  process.exit(code);
}
function readable(bytes) {
  if (bytes >= 1048576) return Number((bytes / 1048576).toFixed(1)) + ' MiB';
  if (bytes >= 1024) return Number((bytes / 1024).toFixed(1)) + ' KiB';
  return bytes + ' bytes';
}
function tooLarge(bytes) {
  process.stderr.write(${JSON.stringify(TOO_LARGE_BEFORE)} + bytes + ' bytes (' + readable(bytes) + ')' + ${JSON.stringify(TOO_LARGE_AFTER)});
  process.exit(2);
}
if (!lease || !endpoint) fail(4, "no lease: MURMUR_TOOLS_LEASE and MURMUR_TOOLS_ENDPOINT are not set (murmur-tools works inside an agent's bash)");
const argv = process.argv.slice(2);
// --args-file F and --args - become --args with the bytes attached after the header: sent raw, counted exactly.
const attached = [];
const bodies = [];
let attachedBytes = 0;
function attach(index, bytes) {
  argv[index] = '';
  attached.push([index, bytes.length]);
  bodies.push(bytes);
  attachedBytes += bytes.length;
  if (attachedBytes > LIMIT) tooLarge(attachedBytes);
}
for (let i = 0; i < argv.length - 1; i++) {
  if (argv[i] === '--args-file') {
    const file = argv[i + 1];
    let bytes;
    try {
      // A file past the limit is refused unread.
      const size = fs.statSync(file).size;
      if (attachedBytes + size > LIMIT) tooLarge(attachedBytes + size);
      bytes = fs.readFileSync(file);
    } catch (error) {
      fail(2, '--args-file ' + file + ': ' + error.message);
    }
    argv[i] = '--args';
    attach(i + 1, bytes);
    i++;
  } else if (argv[i] === '--args' && argv[i + 1] === '-') {
    attach(i + 1, fs.readFileSync(0));
    i++;
  }
}
const header = Buffer.from(JSON.stringify(attached.length > 0 ? { lease, argv, attached } : { lease, argv }) + '\n');
if (header.length + attachedBytes > LIMIT) tooLarge(header.length + attachedBytes);
const socket = require('node:net').connect(endpoint);
const answer = [];
socket.on('connect', () => {
  socket.write(header);
  for (const bytes of bodies) socket.write(bytes);
});
socket.on('data', (chunk) => answer.push(chunk));
socket.on('error', (error) => {
  if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')
    fail(4, 'this lease is not valid: nothing answers at ' + endpoint + " (its agent has ended, or murmur has exited); murmur-tools works only inside a running agent's bash");
  fail(4, 'cannot reach the murmur host at ' + endpoint + ': ' + error.message);
});
socket.on('end', () => {
  // The host may answer before reading everything (a refusal): what is still unsent is dropped.
  socket.destroy();
  let reply;
  try {
    reply = JSON.parse(Buffer.concat(answer).toString('utf8'));
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
