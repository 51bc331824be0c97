// Splits a shell command into its simple commands, so an allow rule such as `bash(npm test*)` cannot be
// stretched over `npm test && curl … | sh`: every part must be allowed on its own. Quote-aware; anything that
// runs a command inside another (`$(…)`, backticks, `<(…)`) is flagged, since no argument pattern can vouch for it.

export interface ShellParts {
  /** The simple commands, trimmed, in order (separated by ; && || | & and newlines outside quotes). */
  segments: string[];
  /** True when the command substitutes another command's output or a process (`$(`, backtick, `<(`, `>(`). */
  substitution: boolean;
}

export function splitShellCommand(command: string): ShellParts {
  const segments: string[] = [];
  let substitution = false;
  let current = '';
  let quote: "'" | '"' | undefined;
  const flush = () => {
    const part = current.trim();
    if (part !== '') segments.push(part);
    current = '';
  };
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    const next = command[i + 1];
    if (quote === "'") {
      current += char;
      if (char === "'") quote = undefined;
      continue;
    }
    if (char === '\\') {
      // An escaped character is literal, a separator included.
      current += char + (next ?? '');
      i++;
      continue;
    }
    if (char === '`' || (char === '$' && next === '(')) substitution = true;
    if (quote === '"') {
      current += char;
      if (char === '"') quote = undefined;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if ((char === '<' || char === '>') && next === '(') substitution = true;
    const previous = command[i - 1];
    if (char === ';' || char === '\n' || char === '\r') {
      flush();
      continue;
    }
    if (char === '|') {
      // `||` and `|&` are one operator.
      if (next === '|' || next === '&') i++;
      flush();
      continue;
    }
    if (char === '&') {
      // `2>&1`, `>&2`, `&>file` and `&>>file` are redirections, not separators.
      if (previous === '>' || previous === '<' || next === '>') {
        current += char;
        continue;
      }
      if (next === '&') i++;
      flush();
      continue;
    }
    current += char;
  }
  flush();
  return { segments, substitution };
}
