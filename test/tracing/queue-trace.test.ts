// A queue swarm's trace crosses processes: the item's span is opened by the coordinator, its trace context travels
// in the job, and the `murmur worker` that runs the item puts its agents' spans under it: one trace.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clone,
  editScript,
  privateRedis,
  redisAvailable,
  startWorker,
  swarmOnQueue,
  workspace,
} from '../queue/helpers.js';
import { childrenOf, OtlpReceiver, outline } from './otlp-receiver.js';

describe.runIf(redisAvailable())('a queue swarm traced across workers', () => {
  const fixture = privateRedis('murmur-queue-otel-');
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("puts each item's worker spans under the coordinator's item span, in its trace", { timeout: 60_000 }, async () => {
    const { dir, redis } = fixture;
    const { repo, script } = workspace(path.join(dir, 'one'), { 'a.txt': 'a\n', 'b.txt': 'a\n' }, editScript(10));
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const worker = startWorker(redis.url, clone(repo, dir, 'w1'), dir, 'host-1', [], {
      ...otel,
      OTEL_SERVICE_NAME: 'murmur-worker',
    });
    try {
      const ran = await swarmOnQueue(
        redis.url,
        repo,
        script,
        ['a.txt', 'b.txt'],
        dir,
        ['--permission-mode', 'auto'],
        otel,
      );
      expect(ran.stderr).toBe('');
      expect(ran.exitCode).toBe(0);
    } finally {
      // The worker flushes its spans as it stops.
      worker.child.kill('SIGTERM');
      await worker.child;
    }
    const spans = receiver.spans;
    expect(new Set(spans.map((s) => s.traceId)).size, outline(spans)).toBe(1);
    const items = spans.filter((s) => s.name === 'murmur.swarm.item');
    expect(items).toHaveLength(2);
    for (const item of items) {
      expect(item.resource['service.name']).toBe('murmur');
      expect(item.attributes).toMatchObject({
        'murmur.swarm.item.outcome': 'completed',
        'murmur.worker.host': 'host-1',
      });
      const agents = childrenOf(spans, item);
      expect(agents.map((s) => s.name)).toEqual(['invoke_agent worker']);
      expect(agents[0]!.resource['service.name']).toBe('murmur-worker');
      expect(
        childrenOf(spans, agents[0]!)
          .map((s) => s.name)
          .sort(),
      ).toEqual(['chat scripted', 'chat scripted', 'execute_tool edit']);
    }
  });
});
