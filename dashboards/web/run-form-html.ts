// The New run and New swarm pages: the choices of `murmur run` and `murmur swarm`, each field with its error line
// (the page's script puts an error from the server next to the field it names). Left empty, the model, effort
// and permission mode are the workspace's defaults, as on the command line.
import { h, options } from './html.js';
import { layout, type Assets } from './pages.js';
import { EFFORTS, MODES } from './run-input.js';
import { MAX_BODY_BYTES, MAX_SWARM_BODY_BYTES } from './body-limits.js';
import type { ModelOption } from './model-choices.js';

export interface RunChoices {
  workspace: string;
  /** Model specs to suggest (the default first). */
  models: ModelOption[];
  /** Agents defined for the workspace. */
  agents: string[];
}

const errorLine = (name: string) => `<p class="error" data-error="${name}" role="alert"></p>`;

function commonSelectors(choices: RunChoices): string {
  const models = choices.models.map((m) => `<option value="${h(m.spec)}" label="${h(m.why)}"></option>`).join('');
  return `<div class="selectors">
<label>Model <input name="model" list="model-list" placeholder="the workspace's default" autocomplete="off"><datalist id="model-list">${models}</datalist></label>
<label>Effort <select name="effort">${options([['', 'default'], ...EFFORTS.map((e) => [e, e] as const)], '')}</select></label>
<label>Permission mode <select name="permissionMode">${options([['', 'default'], ...MODES.map((m) => [m, m] as const)], '')}</select></label>
</div>${errorLine('model')}${errorLine('effort')}${errorLine('permissionMode')}`;
}

function page(title: string, form: string, assets: Assets, workspace: string): string {
  return layout(
    `${title} — murmur`,
    `<header class="bar"><h1>${h(title)}</h1></header><p class="meta">In ${h(workspace)}</p>${form}`,
    { nav: 'sessions', assets },
  );
}

export function newRunPage(choices: RunChoices, assets: Assets): string {
  const agents = options([['', 'main (default)'], ...choices.agents.map((a) => [a, a] as const)], '');
  const form = `<form id="run-form" class="task-form start-form" data-kind="run" data-max-bytes="${MAX_BODY_BYTES}" novalidate>
<div class="block"><h2>Task</h2><label for="run-task" class="sr">Task</label><textarea id="run-task" name="task" rows="5" placeholder="What the main agent should do"></textarea>${errorLine('task')}</div>
<div class="block"><h2>How it runs</h2>${commonSelectors(choices)}
<label>Agent <select name="agent">${agents}</select></label>${errorLine('agent')}</div>
${errorLine('form')}<div><button class="button primary" type="submit">Start run</button></div></form>`;
  return page('New run', form, assets, choices.workspace);
}

export function newSwarmPage(choices: RunChoices, assets: Assets): string {
  const roles = options(
    [
      ['worker', 'worker'],
      ['explore', 'explore'],
      ['verifier', 'verifier'],
      ...choices.agents.map((a) => [a, a] as const),
    ],
    'worker',
  );
  const form = `<form id="swarm-form" class="task-form start-form" data-kind="swarm" data-max-bytes="${MAX_SWARM_BODY_BYTES}" novalidate>
<div class="block"><h2>Template</h2><label for="swarm-template" class="sr">Template</label><textarea id="swarm-template" name="template" rows="4" placeholder="The prompt for each item; {{item}} is replaced by the item"></textarea>${errorLine('template')}</div>
<div class="block"><h2>Items</h2><fieldset class="kinds"><legend>Items from</legend>
<label><input type="radio" name="source" value="list" checked> A list</label><label><input type="radio" name="source" value="glob"> Files matching a glob</label></fieldset>
<div data-source="list"><label for="swarm-items" class="sr">Items, one per line</label><textarea id="swarm-items" name="items" rows="8" placeholder="One item per line"></textarea><p class="meta" id="items-count" aria-live="polite">0 items</p></div>
<div data-source="glob" hidden><label>Glob <input name="glob" placeholder="src/**/*.ts" autocomplete="off"></label><p class="meta" id="glob-count" aria-live="polite"></p></div>
${errorLine('items')}${errorLine('glob')}</div>
<div class="block"><h2>How it runs</h2><div class="selectors">
<label>Role <select name="role">${roles}</select></label>
<label>Max concurrency <input name="maxConcurrency" type="number" min="1" placeholder="no cap"></label>
<label><input type="checkbox" name="verify"> Verify each item</label>
<label data-verify hidden>Max rounds <input name="maxRounds" type="number" min="1" value="2"></label>
</div>${errorLine('role')}${errorLine('maxConcurrency')}${errorLine('verify')}${errorLine('maxRounds')}
<label><input type="checkbox" name="isolation" value="worktree"> Each worker in its own git worktree (merged back when it completes)</label>${errorLine('isolation')}
${commonSelectors(choices)}</div>
${errorLine('form')}<div><button class="button primary" type="submit">Start swarm</button></div></form>`;
  return page('New swarm', form, assets, choices.workspace);
}
