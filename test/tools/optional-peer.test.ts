// An optional peer that is not installed is named with what needs it; any other load failure is left as it is.
import { describe, expect, it } from 'vitest';
import { importPeer, loadFailure, MissingPeerError } from '../../tools/optional-peer.js';

describe('importPeer', () => {
  it('names the missing package, what needs it and the command that installs it', async () => {
    const missing = 'murmur-no-such-peer';
    const error = await importPeer(() => import(missing), missing, 'queue swarms').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingPeerError);
    expect(loadFailure(missing, error)).toBe(
      'the package murmur-no-such-peer is not installed (it is needed for queue swarms): npm install murmur-no-such-peer',
    );
  });

  it('names the package for a missing subpath of it too', async () => {
    const subpath = 'murmur-no-such-peer/client/index.js';
    const error = await importPeer(() => import(subpath), 'murmur-no-such-peer', 'MCP servers').catch(
      (e: unknown) => e,
    );
    expect((error as MissingPeerError).packageName).toBe('murmur-no-such-peer');
  });

  it('rethrows what an installed package fails with, and returns what loads', async () => {
    const broken = new Error('boom inside the package');
    await expect(importPeer(() => Promise.reject(broken), 'yaml', 'front matter')).rejects.toBe(broken);
    expect(loadFailure('yaml', broken)).toBe('cannot load the yaml package: boom inside the package');
    const yaml = await importPeer(() => import('yaml'), 'yaml', 'front matter');
    expect(typeof yaml.parse).toBe('function');
  });
});
