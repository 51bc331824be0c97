// The floors of the house (README.md, "Layout": the rooms and their floors), kept by the linter rather than by
// memory: which top-level folder may import which. Each source room lists the rooms it must not reach; test/ and
// bench/ may import anything.
import tseslint from 'typescript-eslint';

/** An import path that reaches into one of `rooms` (a relative path through `…/room/`). */
function reaching(rooms) {
  return `^(\\.\\./)+(${rooms.map((room) => room.regex ?? room).join('|')})(/|$)`;
}

/** A room but one of its files, for a floor's list: every other file of `room` is reached. */
function roomBut(room, file) {
  return { regex: `${room}(?!/${file.replaceAll('.', '\\.')}$)`, words: `${room} (but ${room}/${file})` };
}

/**
 * The rule for one room: its files may not import the listed rooms (a room, a file of one as a pattern, or a room but
 * one of its files: roomBut); `typesOnly` rooms they may import types from (their public types), never values.
 */
function floor(room, forbidden, why, typesOnly = [], typesWhy = '') {
  const message = `${room}/ may not import ${forbidden.map((r) => r.words ?? r).join(', ')}: ${why}`;
  const typesMessage = `${room}/ may import only types from ${typesOnly.join(', ')}: ${typesWhy}`;
  const lazy = [
    { selector: `ImportExpression[source.value=/${reaching(forbidden).replaceAll('/', '\\/')}/]`, message },
  ];
  if (typesOnly.length > 0)
    lazy.push({
      selector: `ImportExpression[source.value=/${reaching(typesOnly).replaceAll('/', '\\/')}/]`,
      message: typesMessage,
    });
  const patterns = [{ regex: reaching(forbidden), message }];
  if (typesOnly.length > 0)
    patterns.push({ regex: reaching(typesOnly), message: typesMessage, allowTypeImports: true });
  return {
    files: [`${room}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
      // The lazy `await import('…')` of a command or a heavy module counts as an import too.
      'no-restricted-syntax': ['error', ...lazy],
    },
  };
}

const ABOVE_ENGINE = ['swarm', 'scheduler', 'dashboards', 'cli', 'host', 'api'];
/**
 * The rooms a front end reaches only through host/ (its re-exports name what each front end gets there) and
 * protocol/ (the types that cross the boundary). The command line parses murmur.toml itself: of the engine's room it
 * may import orchestrator/config.js, no other file.
 */
const BEHIND_HOST = ['orchestrator', 'tools', 'roles', 'swarm'];

export default [
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**', 'docs/**', 'examples/**', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { sourceType: 'module' } },
    // Registered so the code's few disable comments name rules that exist.
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  floor('protocol', ['orchestrator', 'tools', 'roles', ...ABOVE_ENGINE], 'the ground floor imports nothing'),
  floor('tools', ['orchestrator', 'roles', ...ABOVE_ENGINE], 'a tool reaches the engine through the ctx it is handed'),
  floor('roles', ['orchestrator', ...ABOVE_ENGINE], 'roles build on the tool contract only'),
  floor('orchestrator', ABOVE_ENGINE, 'the engine knows nothing of the rooms built on it'),
  floor(
    'swarm',
    ['dashboards', 'cli', 'host', 'api', 'orchestrator/engine\\.js', 'orchestrator/agent-tree\\.js'],
    'the swarm sees the engine only through its SwarmEngine port (swarm/swarm-engine.ts); the host chooses how it is shown and started',
  ),
  floor('dashboards', ['swarm', 'cli', 'api', 'roles', 'tools'], 'a screen is a subscriber to events'),
  floor('host', ['dashboards', 'cli', 'api'], 'every front end calls the host, not the other way round'),
  floor(
    'scheduler',
    ['orchestrator', 'tools', 'roles', 'swarm', 'dashboards', 'cli', 'api'],
    'scheduled tasks are a room of their own on host/ and protocol/ (README.md, Layout): their runs are sessions the command line starts, watched by no screen',
  ),
  floor(
    'api',
    [...BEHIND_HOST, 'scheduler', 'cli', 'dashboards'],
    'the public library may import host/ and protocol/ only (README.md, Layout): it starts, answers and reads runs through host/, which re-exports what it needs of the rooms below, and names the types that cross the boundary from protocol/',
  ),
  floor(
    'cli',
    ['api', roomBut('orchestrator', 'config.js'), 'tools', 'roles', 'swarm'],
    'the command line starts, answers and reads runs through host/ and protocol/ (README.md, Layout); besides them it may use the screens (dashboards/), the scheduler, and config parsing (orchestrator/config.js), and the library is another front end beside it',
  ),
];
