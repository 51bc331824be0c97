// Every export of the library's entries (murmur-agents, murmur-agents/tools, murmur-agents/testing) has a doc
// comment: the API reference (`npm run docs`, TypeDoc) is made from them, and an export without one would be a
// bare name there. Exports of other packages (TypeBox's Type, Static, TSchema) are theirs to document.
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../murmur-bin.js';

const ENTRIES = ['api/index.ts', 'api/tools.ts', 'api/testing.ts'];

function undocumentedExports(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  const program = ts.createProgram(
    ENTRIES.map((entry) => path.join(ROOT, entry)),
    { ...config!.options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const missing: string[] = [];
  for (const entry of ENTRIES) {
    const file = program.getSourceFile(path.join(ROOT, entry))!;
    const module = checker.getSymbolAtLocation(file)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declarations = symbol.declarations ?? [];
      if (declarations.some((d) => d.getSourceFile().fileName.includes('/node_modules/'))) continue;
      const documented =
        symbol.getDocumentationComment(checker).length > 0 ||
        declarations.some((d) => ts.getJSDocCommentsAndTags(d).length > 0);
      if (!documented) missing.push(`${entry}: ${exported.name}`);
    }
  }
  return missing;
}

describe('the API reference', () => {
  it('has a doc comment for every export of the library', () => {
    expect(undocumentedExports()).toEqual([]);
  }, 60_000);
});
