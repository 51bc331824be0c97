// Reduces an HTML page to its main text as Markdown: linkedom parses, Readability finds the article, turndown
// writes Markdown. The three libraries load on first use so start-up stays fast.

export interface PageText {
  title?: string;
  markdown: string;
}

interface Libraries {
  parseHTML: typeof import('linkedom').parseHTML;
  Readability: typeof import('@mozilla/readability').Readability;
  Turndown: typeof import('turndown');
}

let libraries: Promise<Libraries> | undefined;

function loadLibraries(): Promise<Libraries> {
  libraries ??= Promise.all([import('linkedom'), import('@mozilla/readability'), import('turndown')]).then(
    ([linkedom, readability, turndown]) => ({
      parseHTML: linkedom.parseHTML,
      Readability: readability.Readability,
      Turndown: turndown.default,
    }),
  );
  return libraries;
}

const NOISE = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'canvas',
  'form',
  'button',
  'select',
  'input',
] as const;

function cleanTitle(title: string | null | undefined): string | undefined {
  const text = title?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
}

/** `url` resolves relative links, so the Markdown's links work outside the page. */
export async function htmlToMarkdown(html: string, url: string): Promise<PageText> {
  const { parseHTML, Readability, Turndown } = await loadLibraries();
  const { document } = parseHTML(html);
  // linkedom has no document URL; a <base> lets Readability turn relative links into absolute ones.
  if (document.head && !document.querySelector('base[href]')) {
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head.prepend(base);
  }
  const pageTitle = cleanTitle(document.title);
  const turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove([...NOISE]);
  let article: ReturnType<InstanceType<typeof Readability<string>>['parse']> = null;
  try {
    // Readability changes the document it reads; nothing else uses this one.
    article = new Readability<string>(document as never).parse();
  } catch {
    article = null;
  }
  const articleHtml = article?.content ?? '';
  if (article && articleHtml.trim() !== '' && (article.textContent ?? '').trim() !== '') {
    return { title: cleanTitle(article.title) ?? pageTitle, markdown: turndown.turndown(articleHtml).trim() };
  }
  // No article found (a short page, a listing): the whole body, minus the noise, is the next best thing.
  const fallback = parseHTML(html).document;
  const body = fallback.body?.innerHTML ?? html;
  return { title: pageTitle, markdown: turndown.turndown(body).trim() };
}
