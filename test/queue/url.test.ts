// The queue's address: checked before anything starts, never shown with its password, and kept from agents.
import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../tools/shell/secret-env.js';
import { hidePassword, holdsSecret, parseQueueUrl } from '../../swarm/queue/url.js';

describe('queue URLs', () => {
  it('are shown with the password hidden, whatever their shape', () => {
    expect(hidePassword('redis://:s3cret@db.example:6380/2')).toBe('redis://:***@db.example:6380/2');
    expect(hidePassword('rediss://murmur:s3cret@db.example:6380')).toBe('rediss://murmur:***@db.example:6380');
    expect(hidePassword('redis://db.example:6379')).toBe('redis://db.example:6379');
    expect(hidePassword('redis://user:s3cret@[bad')).not.toContain('s3cret');
  });

  it('hide a password given as a query parameter (ioredis logs in with it), and count it as a secret', () => {
    expect(hidePassword('redis://db.example:6379/0?password=s3cret')).toBe('redis://db.example:6379/0?password=***');
    expect(hidePassword('redis://db.example:6379/0?db=1&Pass=s3cret&auth=x')).toBe(
      'redis://db.example:6379/0?db=1&Pass=***&auth=***',
    );
    expect(hidePassword('not a url?password=s3cret')).not.toContain('s3cret');
    const parsed = parseQueueUrl('redis://h:1/0?password=s3cret', '--queue');
    expect(parsed.ok && parsed.shown).toBe('redis://h:1/0?password=***');
    // Never saved with the session, whichever way the secret travels.
    expect(holdsSecret('redis://h:1/0?password=s3cret')).toBe(true);
    expect(holdsSecret('redis://:s3cret@h:1')).toBe(true);
    expect(holdsSecret('redis://user:s3cret@h:1')).toBe(true);
    expect(holdsSecret('redis://h:1/0?db=2')).toBe(false);
    expect(holdsSecret('redis://h:6379')).toBe(false);
  });

  it('accept redis:// and rediss:// with an optional numeric database; anything else names the value and the form', () => {
    expect(parseQueueUrl('redis://:pw@127.0.0.1:6379/3', '--queue')).toEqual({
      ok: true,
      url: 'redis://:pw@127.0.0.1:6379/3',
      shown: 'redis://:***@127.0.0.1:6379/3',
    });
    expect(parseQueueUrl('rediss://h:6380', 'MURMUR_QUEUE').ok).toBe(true);
    const bad = parseQueueUrl('http://:pw@h:1', 'MURMUR_QUEUE');
    expect(!bad.ok && bad.error).toMatch(
      /^MURMUR_QUEUE "http:\/\/:\*\*\*@h:1\/?" is not a Redis URL; expected redis:\/\/\[user:password@\]HOST:PORT\[\/DB\]/,
    );
    const db = parseQueueUrl('redis://h:1/x', '--queue');
    expect(!db.ok && db.error).toMatch(/the database "x" is not a number/);
    const junk = parseQueueUrl('not a url :pw@', '--queue');
    expect(!junk.ok && junk.error).toMatch(/is not a URL/);
  });

  it("MURMUR_QUEUE never reaches an agent's commands", () => {
    expect(scrubSecrets({ MURMUR_QUEUE: 'redis://:pw@h:1', PATH: '/bin' })).toEqual({ PATH: '/bin' });
  });
});
