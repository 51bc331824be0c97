// The dashboard's text layout, without a terminal: widths, scrolling, escaping.
import { describe, expect, it } from 'vitest';
import { displayWidth, fit, truncate } from '../../dashboards/format.js';
import { renderProgress, renderTable, renderTranscript, splitCells } from '../../dashboards/tui-render.js';
import { initialSnapshot, reduce, sortedAgents } from '../../dashboards/view-model.js';
import type { EventInput, MurmurEvent } from '../../orchestrator/events.js';
import { replayEvents } from '../fixtures/replay-dashboard.js';

const untag = (line: string) =>
  line
    .replace(/\{(?!open\}|close\})\/?[a-z-]+\}/g, '')
    .replace(/\{open\}/g, '{')
    .replace(/\{close\}/g, '}');

function snapshotOf(events: EventInput[]) {
  const s = initialSnapshot({ now: 0 });
  for (const event of events) reduce(s, { ts: 0, ...event } as MurmurEvent);
  return s;
}

describe('dashboard layout', () => {
  it('splits the progress bar exactly across its width, in proportion', () => {
    expect(splitCells([1, 1, 1], 10)).toEqual([4, 3, 3]);
    expect(splitCells([0, 5, 0], 7)).toEqual([0, 7, 0]);
    expect(splitCells([999, 1], 20)).toEqual([19, 1]);
    expect(splitCells([0, 0], 5)).toEqual([0, 0]);
    const s = snapshotOf(replayEvents(40, 0).events);
    const [bar, legend] = renderProgress(s, 80);
    expect(untag(bar!)).toHaveLength(80);
    expect(untag(legend!)).toBe('■ 20 completed  ■ 5 running  ■ 1 rate-limited  ■ 2 failed  ■ 1 aborted  ■ 11 queued');
  });

  it('lays out only the visible rows of 1,000 agents and keeps the selection in view', () => {
    const s = snapshotOf(replayEvents(1000, 0).events);
    const rows = sortedAgents(s);
    expect(rows).toHaveLength(509);
    const top = renderTable(rows, 0, 0, 20, 120, 0);
    expect(top.lines).toHaveLength(20);
    expect(top.lines[1]).toMatch(/^\{inverse\}a-505 /);
    const bottom = renderTable(rows, 508, 0, 20, 120, 0);
    expect(bottom.top).toBe(509 - 19);
    expect(bottom.lines.at(-1)).toMatch(/^\{inverse\}a-01 /);
    const back = renderTable(rows, 100, bottom.top, 20, 120, 0);
    expect(back.top).toBe(100);
    for (const line of [...top.lines, ...bottom.lines]) expect(displayWidth(untag(line))).toBeLessThanOrEqual(120);
  });

  it('keeps columns aligned with wide characters and never lets agent text become markup', () => {
    const s = snapshotOf([
      { type: 'agent.start', agentId: 'a-1', role: 'worker', prompt: 'p', item: '文件/模块-契约.ts' },
      { type: 'agent.start', agentId: 'a-2', role: 'worker', prompt: 'p', item: '{bold}x.ts' },
      { type: 'message.delta', agentId: 'a-2', text: 'braces {red-fg}stay{/red-fg} text' },
    ]);
    const view = renderTable(sortedAgents(s), -1, 0, 10, 100, 0);
    const [header, first, second] = view.lines.map(untag);
    expect(header).toMatch(/^ID\s+ROLE\s+ITEM\s+STATE/);
    const stateColumn = (line: string) => displayWidth(line.slice(0, line.indexOf('running')));
    expect(stateColumn(first!)).toBe(stateColumn(second!));
    expect(second).toContain('{bold}x.ts');
    expect(view.lines[2]).toContain('{open}bold{close}');
    const pane = renderTranscript(s.agents.get('a-2'), 0, 10, 60).map(untag);
    expect(pane.at(-1)).toBe('braces {red-fg}stay{/red-fg} text');
  });

  it('cuts text by terminal cells', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('契约契约', 5)).toBe('契约…');
    expect(displayWidth(fit('契约', 6))).toBe(6);
    expect(fit('7', 3, true)).toBe('  7');
  });
});
