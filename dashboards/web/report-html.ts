// `murmur report --html`: the console's session page as one self-contained file — the stylesheet, the script
// and the folded model inline, no link, no fetch, no font — to attach to a pull request or mail.
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { sessionPage } from './pages.js';
import { SessionSource } from './session-source.js';

export async function renderReportHtml(home: string, id: string): Promise<string> {
  const { model, json } = await new SessionSource(home, id).view();
  return sessionPage(model, { css: CONSOLE_CSS, js: CONSOLE_JS, inline: true }, { live: false, modelJson: json });
}
