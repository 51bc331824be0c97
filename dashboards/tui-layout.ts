// The blessed dashboard's boxes and where each frame puts the snapshot on them: header, progress bar, agent
// table or one agent's transcript, log and footer, and the open question on top. Draws nothing itself.
import type { Widgets } from 'blessed';
import type { Blessed, ModalPrompt } from './tui-types.js';
import { FOOTER, esc, renderHeader, renderLog, renderProgress, renderTable, renderTranscript } from './tui-render.js';
import { sortedAgents, type AgentView, type Snapshot } from './view-model.js';

export interface TuiWidgets {
  header: Widgets.BoxElement;
  bar: Widgets.BoxElement;
  table: Widgets.BoxElement;
  logBox: Widgets.BoxElement;
  footer: Widgets.BoxElement;
  transcript: Widgets.BoxElement;
  modal: Widgets.BoxElement;
}

/** What the user looks at: the table's rows as last laid out, the selected one, the scroll, the open agent. */
export interface ViewState {
  rows: AgentView[];
  selectedId: string | undefined;
  top: number;
  detailId: string | undefined;
}

export function createWidgets(blessed: Blessed, screen: Widgets.Screen): TuiWidgets {
  const box = (extra: Widgets.BoxOptions) =>
    blessed.box({ parent: screen, tags: true, wrap: false, left: 0, width: '100%', ...extra });
  return {
    header: box({ top: 0, height: 2 }),
    bar: box({ top: 2, height: 2 }),
    table: box({ top: 4, height: 1 }),
    logBox: box({ top: 5, height: 1 }),
    footer: box({ bottom: 0, height: 1, style: { fg: 'gray' } }),
    transcript: box({ top: 4, height: 1, hidden: true }),
    modal: blessed.box({
      parent: screen,
      tags: true,
      top: 'center',
      left: 'center',
      width: '60%',
      height: 7,
      border: { type: 'line' },
      style: { border: { fg: 'yellow' } },
      hidden: true,
    }),
  };
}

export interface FrameInput {
  snapshot: Snapshot;
  now: number;
  /** The screen's size as blessed reports it. */
  width: unknown;
  height: unknown;
  aborting: boolean;
  /** The question shown on top, if any. */
  modal: ModalPrompt | undefined;
}

/**
 * Sets every box's content and place for one frame. Picks the selected row and the table's scroll, and
 * writes them (with the rows as sorted now) back to `view`.
 */
export function layoutFrame(w: TuiWidgets, view: ViewState, frame: FrameInput): void {
  const { snapshot: s, now } = frame;
  const width = Math.max(20, Number(frame.width) || 80);
  const height = Math.max(8, Number(frame.height) || 24);
  const logHeight = height >= 30 ? 8 : height >= 20 ? 5 : height >= 14 ? 3 : 0;
  const tableHeight = Math.max(2, height - 4 - logHeight - 1);

  w.header.setContent(renderHeader(s, now, width, { aborting: frame.aborting }).join('\n'));
  w.bar.setContent(renderProgress(s, width).join('\n'));

  view.rows = sortedAgents(s);
  let selected = view.selectedId === undefined ? -1 : view.rows.findIndex((a) => a.id === view.selectedId);
  if (selected < 0 && view.rows.length > 0) selected = Math.min(Math.max(0, view.top), view.rows.length - 1);
  view.selectedId = view.rows[selected]?.id;

  if (view.detailId !== undefined) {
    w.table.hide();
    w.logBox.hide();
    w.transcript.show();
    w.transcript.top = 4;
    w.transcript.height = height - 5;
    w.transcript.setContent(renderTranscript(s.agents.get(view.detailId), now, height - 5, width).join('\n'));
  } else {
    w.transcript.hide();
    w.table.show();
    w.table.top = 4;
    w.table.height = tableHeight;
    const table = renderTable(view.rows, selected, view.top, tableHeight, width, now);
    view.top = table.top;
    w.table.setContent(table.lines.join('\n'));
    if (logHeight > 0) {
      w.logBox.show();
      w.logBox.top = 4 + tableHeight;
      w.logBox.height = logHeight;
      const title = `{gray-fg}${'─'.repeat(2)} log ${'─'.repeat(Math.max(0, width - 8))}{/gray-fg}`;
      w.logBox.setContent(
        [title, ...renderLog(s.log.tail(logHeight - 1), s.startedAt, logHeight - 1, width)].join('\n'),
      );
    } else w.logBox.hide();
  }
  w.footer.setContent(
    esc(view.rows.length > tableHeight - 1 ? `${FOOTER} · ${selected + 1}/${view.rows.length}` : FOOTER),
  );

  const modal = frame.modal;
  if (modal) {
    const choices = modal.choices.map((c) => `{bold}${esc(c.key)}{/bold} ${esc(c.label)}`).join('   ');
    const body = modal.body ? esc(modal.body) : '';
    const lines = [`{bold}${esc(modal.title)}{/bold}`, body, '', `${choices}   {gray-fg}Esc cancel{/gray-fg}`];
    w.modal.height = Math.min(height - 2, lines.length + 2 + Math.floor(body.length / Math.max(10, width * 0.6 - 4)));
    w.modal.setContent(lines.join('\n'));
    w.modal.show();
    w.modal.setFront();
  } else w.modal.hide();
}
