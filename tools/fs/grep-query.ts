// What a grep asks and what it finds, shared by the ripgrep backend and the JavaScript fallback so both
// give the same results.

export type GrepOutputMode = 'files' | 'content' | 'count';

export interface GrepQuery {
  pattern: string;
  /** Real path of the allowed root the search happens in: ripgrep runs there and paths are relative to it. */
  base: string;
  /** What to search, relative to `base` with forward slashes ('' for `base` itself). */
  target: string;
  targetIsFile: boolean;
  /** A file type such as ts or py. */
  type?: string;
  /** A ripgrep glob: without a slash it matches file names at any depth; with one, paths relative to `base`. */
  glob?: string;
  mode: GrepOutputMode;
  ignoreCase: boolean;
  before: number;
  after: number;
  multiline: boolean;
  includeIgnored: boolean;
  /** gitignore-style patterns relative to `base` never searched, include_ignored or not (see WorkspacePolicy.hidden). */
  hidden?: readonly string[];
}

export interface GrepLine {
  /** 1-based line number. */
  line: number;
  text: string;
  /** False for a context line. */
  match: boolean;
}

export interface GrepFileHits {
  /** Relative to the query's base, forward slashes. */
  path: string;
  /** Matching lines (count mode). */
  count?: number;
  /** Runs of contiguous lines (content mode). */
  groups?: GrepLine[][];
}

export type GrepOutcome =
  { ok: true; files: GrepFileHits[]; incomplete?: string; warning?: string } | { ok: false; error: string };

/** Common ripgrep file types (same globs as `rg --type-list`), for the fallback that has no ripgrep to ask. */
export const FILE_TYPES: Readonly<Record<string, { suffixes: readonly string[]; names?: readonly string[] }>> = {
  c: { suffixes: ['.c', '.h', '.H', '.c.in', '.h.in', '.H.in', '.cats'] },
  cpp: {
    suffixes: [
      '.C',
      '.H',
      '.cpp',
      '.hpp',
      '.cxx',
      '.hxx',
      '.cc',
      '.hh',
      '.inl',
      '.C.in',
      '.H.in',
      '.cpp.in',
      '.hpp.in',
      '.cxx.in',
      '.hxx.in',
      '.cc.in',
      '.hh.in',
    ],
  },
  cs: { suffixes: ['.cs'] },
  csharp: { suffixes: ['.cs'] },
  css: { suffixes: ['.css', '.scss'] },
  csv: { suffixes: ['.csv'] },
  dart: { suffixes: ['.dart'] },
  elixir: { suffixes: ['.eex', '.ex', '.exs', '.heex', '.leex', '.livemd'] },
  go: { suffixes: ['.go'] },
  graphql: { suffixes: ['.graphql', '.graphqls'] },
  h: { suffixes: ['.h', '.hh', '.hpp'] },
  haskell: { suffixes: ['.c2hs', '.cpphs', '.hs', '.hsc', '.lhs'] },
  html: { suffixes: ['.ejs', '.htm', '.html'] },
  java: { suffixes: ['.java', '.jsp', '.jspx', '.properties'] },
  js: { suffixes: ['.cjs', '.js', '.jsx', '.mjs', '.vue'] },
  json: { suffixes: ['.json', '.sarif'], names: ['composer.lock'] },
  jsonl: { suffixes: ['.jsonl'] },
  kotlin: { suffixes: ['.kt', '.kts'] },
  less: { suffixes: ['.less'] },
  log: { suffixes: ['.log'] },
  lua: { suffixes: ['.lua'] },
  markdown: { suffixes: ['.markdown', '.md', '.mdown', '.mdwn', '.mdx', '.mkd', '.mkdn'] },
  md: { suffixes: ['.markdown', '.md', '.mdown', '.mdwn', '.mdx', '.mkd', '.mkdn'] },
  php: { suffixes: ['.php', '.php3', '.php4', '.php5', '.php7', '.php8', '.pht', '.phtml'] },
  protobuf: { suffixes: ['.proto'] },
  py: { suffixes: ['.py', '.pyi'] },
  ruby: { suffixes: ['.gemspec', '.rake', '.rb', '.rbw'], names: ['.irbrc', 'Gemfile', 'Rakefile', 'config.ru'] },
  rust: { suffixes: ['.rs'] },
  scala: { suffixes: ['.sbt', '.scala'] },
  sql: { suffixes: ['.psql', '.sql'] },
  svg: { suffixes: ['.svg'] },
  swift: { suffixes: ['.swift'] },
  toml: { suffixes: ['.toml'], names: ['Cargo.lock'] },
  ts: { suffixes: ['.cts', '.mts', '.ts', '.tsx'] },
  txt: { suffixes: ['.txt'] },
  vue: { suffixes: ['.vue'] },
  xml: { suffixes: ['.dtd', '.rng', '.sch', '.xhtml', '.xjb', '.xml', '.xml.dist', '.xsd', '.xsl', '.xslt'] },
  yaml: { suffixes: ['.yaml', '.yml'] },
  zig: { suffixes: ['.zig'] },
};

export function fileHasType(name: string, type: string): boolean {
  const spec = FILE_TYPES[type];
  if (!spec) return false;
  if (spec.names?.includes(name)) return true;
  return spec.suffixes.some((suffix) => name.length > suffix.length && name.endsWith(suffix));
}
