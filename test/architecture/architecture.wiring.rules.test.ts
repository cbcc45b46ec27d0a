/**
 * The wiring rules of server/src (docs/decisions.md §25.2):
 * - no module keeps per-runtime state: no `new Map`, `new WeakMap` or `new WeakSet` at a module's top level (nor in a
 *   class's static field), and no top-level `let`/`var` beyond the few listed below with their reason. Caches,
 *   combiners and batchers are built by runtime.ts and handed to the modules through their deps, so two runtimes in
 *   one process share none of them, and a reader finds every long-lived object in one file;
 * - only the composition root and the entry points name the `Runtime` type: runtime.ts, index.ts, app.ts, server.ts
 *   and cli/. The HTTP routers and handlers of routes/ take narrow deps too (a router's is the union of its
 *   handlers', built from the domain modules' own deps interfaces), and app.ts hands them the runtime, which has all
 *   of it (§25.7). Domain modules declare the narrow deps they use.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(process.cwd(), 'server/src');
const GENERATED = /^generated\//;

/** Top-level Maps that are constants: parsed once from files shipped with the server, the same for every runtime. */
const CONSTANT_MAPS: Record<string, string> = {
  'http/openapi.ts:cache': 'the bundled contracts, parsed once per process; each caller gets its own copy',
};

/** Top-level `let`s that are per process by nature, with why. */
const PROCESS_LETS: Record<string, string> = {
  'ids.ts:offset': 'the position in a pool of random bytes: drawing randomness is per process, not per runtime',
  'collect/rules.ts:compiled': 'the compiled JSON schema of the collect rules, a constant built on first use',
  'accounts/credentialCache.ts:revocations':
    'revocations committed by this process, whichever deps made them (CLI, dashboard, another runtime in tests): every cache in the process must drop what it read before',
};

/** Where `Runtime` may be named: the composition root and the entry points; nothing under routes/. */
const RUNTIME_ENTRY = /^(runtime\.ts|index\.ts|app\.ts|server\.ts|cli\/.*)$/;

function sources(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

const parse = (name: string, code: string) => ts.createSourceFile(name, code, ts.ScriptTarget.Latest, true);

const STATEFUL = new Set(['Map', 'WeakMap', 'WeakSet']);

/** `new Map(…)` and its kin in an expression evaluated when the module loads (not inside a function). */
function statefulNews(node: ts.Node): string[] {
  if (ts.isFunctionLike(node)) return [];
  const own =
    ts.isNewExpression(node) && ts.isIdentifier(node.expression) && STATEFUL.has(node.expression.text)
      ? [node.expression.text]
      : [];
  const inner: string[] = [];
  node.forEachChild((child) => void inner.push(...statefulNews(child)));
  return [...own, ...inner];
}

const nameOf = (d: ts.VariableDeclaration | ts.PropertyDeclaration) => d.name.getText();

/** Module state in one file: `<file>:<name>` of each top-level Map/WeakMap/WeakSet and each top-level `let`/`var`. */
export function moduleState(file: string, source: ts.SourceFile): { maps: string[]; lets: string[] } {
  const maps: string[] = [];
  const lets: string[] = [];
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const mutable = !(statement.declarationList.flags & ts.NodeFlags.Const);
      for (const d of statement.declarationList.declarations) {
        if (mutable) lets.push(`${file}:${nameOf(d)}`);
        if (d.initializer && statefulNews(d.initializer).length > 0) maps.push(`${file}:${nameOf(d)}`);
      }
    } else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const isStatic = ts.canHaveModifiers(member)
          ? (ts.getModifiers(member) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword)
          : false;
        if (ts.isPropertyDeclaration(member) && isStatic && member.initializer) {
          if (statefulNews(member.initializer).length > 0) maps.push(`${file}:${nameOf(member)}`);
        }
      }
    } else if (ts.isExpressionStatement(statement) && statefulNews(statement).length > 0) {
      maps.push(`${file}:(statement)`);
    }
  }
  return { maps, lets };
}

/** Whether a file imports the `Runtime` type (or value) from runtime.ts, or re-exports it. */
export function importsRuntime(file: string, source: ts.SourceFile): boolean {
  return source.statements.some((s) => {
    if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) || !s.moduleSpecifier) return false;
    if (!ts.isStringLiteral(s.moduleSpecifier) || !s.moduleSpecifier.text.startsWith('.')) return false;
    const target = posix.normalize(posix.join(dirname(file), s.moduleSpecifier.text));
    if (target !== 'runtime.js' && target !== 'runtime.ts') return false;
    const names: string[] = [];
    if (ts.isImportDeclaration(s)) {
      const bindings = s.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      }
      if (bindings && ts.isNamespaceImport(bindings)) names.push('Runtime');
    } else if (s.exportClause && ts.isNamedExports(s.exportClause)) {
      for (const e of s.exportClause.elements) names.push((e.propertyName ?? e.name).text);
    }
    return names.includes('Runtime');
  });
}

const files = sources().filter((f) => !GENERATED.test(f));
const parsed = new Map(files.map((f) => [f, parse(f, readFileSync(join(ROOT, f), 'utf8'))]));

describe('server wiring', () => {
  it('no module keeps a Map, WeakMap or WeakSet at its top level, beyond the listed constants', () => {
    assert.ok(files.length > 200, `found ${files.length} files`);
    const found = files.flatMap((f) => moduleState(f, parsed.get(f)!).maps);
    assert.deepEqual(
      found.filter((m) => !(m in CONSTANT_MAPS)),
      [],
    );
    // A listed constant that is gone leaves the list too.
    assert.deepEqual(
      Object.keys(CONSTANT_MAPS).filter((m) => !found.includes(m)),
      [],
    );
  });

  it('no module has a top-level let or var, beyond the listed per-process ones', () => {
    const found = files.flatMap((f) => moduleState(f, parsed.get(f)!).lets);
    assert.deepEqual(
      found.filter((l) => !(l in PROCESS_LETS)),
      [],
    );
    assert.deepEqual(
      Object.keys(PROCESS_LETS).filter((l) => !found.includes(l)),
      [],
    );
  });

  it('only runtime.ts and the entry points import the Runtime type: no route, no domain module', () => {
    const importers = files.filter((f) => importsRuntime(f, parsed.get(f)!));
    assert.deepEqual(
      importers.filter((f) => !RUNTIME_ENTRY.test(f)),
      [],
    );
  });

  it('the rules see a top-level Map, a static WeakMap, a top-level let and a Runtime import', () => {
    const state = moduleState(
      'x.ts',
      parse(
        'x.ts',
        [
          'const cache = new WeakMap<object, number>();',
          'export const byKey = wrap(new Map());',
          'class C { static seen = new WeakSet(); private own = new Map(); }',
          'let counter = 0;',
          'const SAFE = new Set(["GET"]);',
          'export function f() { const local = new Map(); return local; }',
          'const g = () => new Map();',
        ].join('\n'),
      ),
    );
    assert.deepEqual(state.maps, ['x.ts:cache', 'x.ts:byKey', 'x.ts:seen']);
    assert.deepEqual(state.lets, ['x.ts:counter']);
    assert.equal(importsRuntime('team/a.ts', parse('a.ts', "import type { Runtime } from '../runtime.js';")), true);
    assert.equal(importsRuntime('team/a.ts', parse('a.ts', "import { createRuntime } from '../runtime.js';")), false);
    assert.equal(importsRuntime('a.ts', parse('a.ts', "export { type Runtime } from './runtime.js';")), true);
  });
});
