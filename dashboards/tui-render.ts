// Pure text layout for the blessed dashboard: each function turns the snapshot into blessed-tagged lines
// of a given width. No terminal here, so these are cheap to test and to call ten times a second.
import { displayWidth, fit, formatClock, formatCost, formatTokens, oneLine, sliceWidth, truncate } from './format.js';
import {
  activity,
  agentElapsedMs,
  agentLabel,
  concurrency,
  elapsedMs,
  isRateLimited,
  progress,
  rates,
  transcriptTail,
  type AgentView,
  type AgentViewState,
  type LogEntry,
  type Snapshot,
} from './view-model.js';
import { plural } from './plural.js';

/** Escapes text for a blessed box with `tags: true` (what blessed.escape does). */
export function esc(text: string): string {
  return text.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

function color(name: string, text: string): string {
  return `{${name}-fg}${text}{/${name}-fg}`;
}

const STATE_COLOR: Record<AgentViewState, string> = {
  running: 'cyan',
  verifying: 'blue',
  rate_limited: 'magenta',
  waiting: 'yellow',
  queued: 'gray',
  completed: 'green',
  failed: 'red',
  timeout: 'red',
  budget: 'red',
  conflict: 'red',
  aborted: 'yellow',
};

const STATE_LABEL: Record<AgentViewState, string> = {
  running: 'running',
  verifying: 'verifying',
  rate_limited: 'rate-limited',
  waiting: 'waiting',
  queued: 'queued',
  completed: 'completed',
  failed: 'failed',
  timeout: 'timeout',
  budget: 'budget',
  conflict: 'conflict',
  aborted: 'aborted',
};

export interface HeaderState {
  /** Set once the user confirmed the abort. */
  aborting: boolean;
}

/** Two lines: what runs on which model for how long; then tokens, cost, concurrency and the rate-limit mark. */
export function renderHeader(s: Snapshot, now: number, width: number, state: HeaderState): string[] {
  const swarm = [...s.swarms.values()].pop();
  const what = s.title || swarm?.description || 'murmur';
  const elapsed = formatClock(elapsedMs(s, now));
  const right = ` · ${s.model ? `model ${s.model} · ` : ''}${elapsed}`;
  const status = state.aborting ? ' ABORTING…' : s.runStatus ? ` ${s.runStatus.toUpperCase()}` : '';
  const titleWidth = Math.max(10, width - right.length - status.length - 9);
  const line1 = `{bold}murmur{/bold} · ${esc(truncate(oneLine(what), titleWidth))}${esc(right)}${status ? `{yellow-fg}{bold}${status}{/bold}{/yellow-fg}` : ''}`;

  const parts: string[] = [];
  parts.push(`tokens ${formatTokens(s.usage.input)} in / ${formatTokens(s.usage.output)} out`);
  if (s.costKnown) parts.push(formatCost(s.usage.cost ?? 0));
  const rate = rates(s, now);
  if (rate.tokensPerSecond > 0) parts.push(`${formatTokens(rate.tokensPerSecond)} tok/s`);
  const c = concurrency(s);
  let conc = `running ${c.running}`;
  if (c.capacity !== undefined) conc += ` / capacity ${c.capacity}`;
  if (c.max !== undefined) conc += ` (max ${c.max})`;
  parts.push(conc);
  if (s.swarms.size > 0 && swarm) parts.push(`swarm ${swarm.role}: ${truncate(swarm.description, 40)}`);
  let line2 = esc(truncate(parts.join(' · '), width - 14));
  if (isRateLimited(s)) line2 += ' {magenta-bg}{white-fg}{bold} RATE LIMITED {/bold}{/white-fg}{/magenta-bg}';
  return [line1, line2];
}

const BAR_GROUPS = [
  { key: 'completed', label: 'completed', color: 'green', glyph: '█' },
  { key: 'running', label: 'running', color: 'cyan', glyph: '█' },
  { key: 'rateLimited', label: 'rate-limited', color: 'magenta', glyph: '█' },
  { key: 'failed', label: 'failed', color: 'red', glyph: '█' },
  { key: 'aborted', label: 'aborted', color: 'yellow', glyph: '█' },
  { key: 'queued', label: 'queued', color: 'gray', glyph: '░' },
] as const;

/**
 * Splits `width` cells among counts in proportion (largest remainder) so the segments fill the bar
 * exactly; every non-zero count gets at least one cell, so a single failure among 1,000 still shows.
 */
export function splitCells(counts: readonly number[], width: number): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0 || width <= 0) return counts.map(() => 0);
  const present = counts.filter((n) => n > 0).length;
  const floor = width >= present ? 1 : 0;
  const rest = width - floor * present;
  const exact = counts.map((n) => (n * rest) / total);
  const cells = counts.map((n, i) => (n > 0 ? floor + Math.floor(exact[i]!) : 0));
  let left = width - cells.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    if (counts[i]! > 0) {
      cells[i]!++;
      left--;
    }
  }
  return cells;
}

/** The progress bar (split by state) and the counts under it. */
export function renderProgress(s: Snapshot, width: number): string[] {
  const p = progress(s);
  const counts = BAR_GROUPS.map((g) => p[g.key]);
  const tail = ` ${p.completed}/${p.total} done`;
  const barWidth = Math.max(1, width - tail.length - 2);
  const cells = splitCells(counts, barWidth);
  let bar = '';
  BAR_GROUPS.forEach((g, i) => {
    if (cells[i]! > 0) bar += color(g.color, g.glyph.repeat(cells[i]!));
  });
  const empty = barWidth - cells.reduce((a, b) => a + b, 0);
  if (empty > 0) bar += color('gray', '·'.repeat(empty));
  const legend = BAR_GROUPS.map((g) => `${color(g.color, '■')} ${p[g.key]} ${g.label}`).join('  ');
  return [`[${bar}]${tail}`, legend];
}

interface Column {
  title: string;
  width: number;
  right?: boolean;
  cell: (agent: AgentView, now: number) => string;
}

function columns(width: number, idWidth: number): Column[] {
  const fixed: Column[] = [
    { title: 'ID', width: idWidth, cell: (a) => a.id },
    { title: 'ROLE', width: 8, cell: (a) => a.role },
  ];
  const state: Column = {
    title: 'STATE',
    width: width >= 100 ? 14 : 12,
    cell: (a) => STATE_LABEL[a.state] + (a.verdict ? ` ${a.verdict}` : ''),
  };
  const numbers: Column[] = [
    { title: 'ELAPSED', width: 7, right: true, cell: (a, now) => formatClock(agentElapsedMs(a, now)) },
    { title: 'TURNS', width: 5, right: true, cell: (a) => String(a.turns) },
    { title: 'TOOLS', width: 5, right: true, cell: (a) => String(a.toolCalls) },
    { title: 'TOKENS', width: 7, right: true, cell: (a) => formatTokens(a.usage.input + a.usage.output) },
  ];
  // Narrow terminals lose the counters before they lose what the agent is doing.
  const shown = width >= 100 ? numbers : width >= 70 ? [numbers[0]!, numbers[3]!] : [numbers[0]!];
  const used = [...fixed, state, ...shown].reduce((sum, c) => sum + c.width + 1, 0);
  const flexible = Math.max(16, width - used);
  const itemWidth = Math.max(8, Math.min(40, Math.floor(flexible * 0.4)));
  const activityWidth = Math.max(8, flexible - itemWidth - 1);
  return [
    ...fixed,
    { title: 'ITEM', width: itemWidth, cell: (a) => agentLabel(a) },
    state,
    ...shown,
    { title: 'ACTIVITY', width: activityWidth, cell: (a, now) => activity(a, now) },
  ];
}

export interface TableView {
  /** The column header, then one line per visible row. */
  lines: string[];
  /** The first visible row after clamping. */
  top: number;
}

/**
 * The agent table: only the rows that fit are laid out, so 1,000 agents cost no more than 40.
 * `top` is the first visible row; it moves as little as possible to keep `selected` in view.
 */
export function renderTable(
  rows: readonly AgentView[],
  selected: number,
  top: number,
  height: number,
  width: number,
  now: number,
): TableView {
  const visible = Math.max(1, height - 1);
  let first = Math.min(Math.max(0, top), Math.max(0, rows.length - visible));
  if (selected >= 0 && selected < first) first = selected;
  if (selected >= first + visible) first = selected - visible + 1;
  let idWidth = 4;
  for (let i = first; i < Math.min(rows.length, first + visible); i++) idWidth = Math.max(idWidth, rows[i]!.id.length);
  const cols = columns(width, Math.min(idWidth, 16));
  const header = `{bold}${esc(cols.map((c) => fit(c.title, c.width, c.right)).join(' '))}{/bold}`;
  const lines = [header];
  for (let i = first; i < Math.min(rows.length, first + visible); i++) {
    const agent = rows[i]!;
    const cells = cols.map((c) => {
      const text = esc(fit(oneLine(c.cell(agent, now)), c.width, c.right));
      return c.title === 'STATE' ? color(STATE_COLOR[agent.state], text) : text;
    });
    const line = cells.join(' ');
    lines.push(i === selected ? `{inverse}${line}{/inverse}` : line);
  }
  if (rows.length === 0) lines.push(color('gray', 'no agents yet'));
  return { lines, top: first };
}

const LEVEL_COLOR = { info: 'white', warn: 'yellow', error: 'red' } as const;

/** The newest log entries that fit, oldest first, stamped with the time since the run started. */
export function renderLog(entries: readonly LogEntry[], startedAt: number, height: number, width: number): string[] {
  const shown = entries.slice(Math.max(0, entries.length - height));
  return shown.map((entry) => {
    const stamp = `+${formatClock(entry.ts - startedAt)}`;
    return `${color('gray', stamp)} ${color(LEVEL_COLOR[entry.level], esc(truncate(entry.text, width - stamp.length - 1)))}`;
  });
}

/** Breaks a line into pieces of at most `width` cells. */
function wrap(line: string, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (displayWidth(rest) > width) {
    const piece = sliceWidth(rest, width) || rest.slice(0, 1);
    out.push(piece);
    rest = rest.slice(piece.length);
  }
  out.push(rest);
  return out;
}

/** The transcript pane: a title line, then the newest lines of the agent's transcript, wrapped. */
export function renderTranscript(agent: AgentView | undefined, now: number, height: number, width: number): string[] {
  if (!agent)
    return [
      '{bold}transcript{/bold}',
      color('gray', 'that agent is gone'),
      '',
      color('gray', 'Esc returns to the table'),
    ];
  const facts = [
    agent.role,
    agentLabel(agent),
    `${STATE_LABEL[agent.state]}${agent.verdict ? ` (${agent.verdict})` : ''}`,
    formatClock(agentElapsedMs(agent, now)),
    plural(agent.turns, 'turn'),
    plural(agent.toolCalls, 'tool call'),
    `${formatTokens(agent.usage.input)} in / ${formatTokens(agent.usage.output)} out`,
  ];
  const title = `{bold}${esc(agent.id)}{/bold} ${esc(truncate(oneLine(facts.join(' · ')), width - agent.id.length - 22))} ${color('gray', '(Esc: back)')}`;
  // The todo list first (at most a third of the pane), then the transcript's tail.
  const todos = (agent.todos ?? []).slice(0, Math.max(0, Math.floor((height - 1) / 3)));
  const todoLines = todos.map(
    (t) => `${t.status === 'done' ? '☑' : t.status === 'in_progress' ? '▶' : '☐'} ${t.title}`,
  );
  const bodyHeight = Math.max(1, height - 1 - todoLines.length);
  const wrapped: string[] = [];
  for (const line of transcriptTail(agent, bodyHeight)) wrapped.push(...wrap(line, Math.max(10, width)));
  const body = wrapped.slice(Math.max(0, wrapped.length - bodyHeight)).map(esc);
  const reason =
    agent.reason && agent.state !== 'running' ? [color('red', esc(truncate(`reason: ${agent.reason}`, width)))] : [];
  const todoBlock = todoLines.map((line) => color('cyan', esc(truncate(line, width))));
  return [title, ...todoBlock, ...body.slice(reason.length), ...reason];
}

export const FOOTER = '↑/↓ j/k select · PgUp/PgDn · g/G first/last · Enter transcript · Esc back · q quit';
