// The public type surface: every export of the package's entry points (murmur-agents, murmur-agents/testing, murmur-agents/tools),
// aliases followed to their declarations in the emitted .d.ts files, compared with the committed report
// api-surface.d.ts. An accidental change to the API fails here and shows in review; a deliberate one is
// accepted with `npx vitest run test/api/surface.test.ts -u` (needs `tsc -p .` first: it reads dist/).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..').replace(/\/dist$/, '');
const ENTRIES = {
  'murmur-agents': 'index',
  'murmur-agents/testing': 'testing',
  'murmur-agents/tools': 'tools',
} as const;

function surface(): string {
  const files = Object.values(ENTRIES).map((name) => path.join(ROOT, 'dist', 'api', `${name}.d.ts`));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const out: string[] = [];
  for (const [entry, name] of Object.entries(ENTRIES)) {
    const file = program.getSourceFile(path.join(ROOT, 'dist', 'api', `${name}.d.ts`));
    if (!file) throw new Error(`dist/api/${name}.d.ts is missing: run tsc -p . first`);
    const moduleSymbol = checker.getSymbolAtLocation(file)!;
    out.push(`// ==== ${entry} ====`);
    const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
    for (const exported of exports) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declarations = symbol.declarations ?? [];
      const from = declarations[0]
        ? path.relative(path.join(ROOT, 'dist'), declarations[0].getSourceFile().fileName).replace(/\\/g, '/')
        : '?';
      // Where the declaration lives in node_modules (TypeBox), its name and package are enough.
      if (from.includes('node_modules')) {
        out.push(
          `// ${exported.name}: from ${from
            .slice(from.indexOf('node_modules/') + 13)
            .split('/')
            .slice(0, 2)
            .join('/')}`,
        );
        continue;
      }
      out.push(`// ${exported.name} (${from})`);
      for (const declaration of declarations) {
        const text = ts.isVariableDeclaration(declaration)
          ? declaration.parent.parent.getText()
          : declaration.getText();
        out.push(text.replace(/^export declare |^export /, '').replace(/^declare /, ''));
      }
    }
  }
  return `${out.join('\n')}\n`;
}

describe('the public API surface', () => {
  it('matches the committed report', async () => {
    await expect(surface()).toMatchFileSnapshot('./api-surface.d.ts.txt');
  });
});
