/**
 * The settlement-mode seam of server/src (docs/decisions.md §25.1, CONVENTIONS.md §25):
 * - a mode's folder (settlement/direct/, settlement/collected/) is imported only from inside itself, by the registry
 *   (settlement/modes.ts) and by the composition root (runtime.ts, which registers the modes' jobs): everyone else
 *   asks the registry for a payment's mode and uses the port (settlement/mode.ts);
 * - no file compares a settlement mode's name (`mode === 'collected'`, `case 'direct':`) or reads a payment's stored
 *   mode (`settlementModeOfPayment`) but the registry, and accounts/settlementMode.ts, which parses and checks the
 *   merchant's setting.
 * Type-only imports count, as in architecture.imports.rules.test.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(process.cwd(), 'server/src');

const MODE_FOLDER = /^settlement\/(direct|collected)\//;
const REGISTRY = 'settlement/modes.ts';
const COMPOSITION_ROOT = 'runtime.ts';
/** Where a mode's name may be compared: the registry, and the merchant setting's parser and precondition. */
const NAME_OWNERS = [REGISTRY, 'accounts/settlementMode.ts'];
const MODE_NAME = /^(direct|collected)$/;
/** Reads the mode a payment was created under (db/queries/payments.ts, where it is defined). */
const STORED_MODE_READ = 'settlementModeOfPayment';

function sources(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

const parse = (file: string, code: string) => ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);

function specifiersOf(source: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(source, (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
  });
  return found;
}

/** The imports of `file` that reach into a mode's folder it may not import. */
function modeFolderImports(file: string, specifiers: string[]): string[] {
  if (file === REGISTRY || file === COMPOSITION_ROOT) return [];
  const own = MODE_FOLDER.exec(file)?.[0];
  return specifiers.flatMap((specifier) => {
    if (!specifier.startsWith('.')) return [];
    const target = posix.normalize(posix.join(dirname(file), specifier));
    const folder = MODE_FOLDER.exec(target)?.[0];
    return folder && folder !== own ? [`${file} → ${specifier}`] : [];
  });
}

const isModeName = (node: ts.Node) => ts.isStringLiteralLike(node) && MODE_NAME.test(node.text);
const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Comparisons with a mode's name, `case` clauses of one, and reads of a payment's stored mode, with their line. */
function modeTests(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const at = (node: ts.Node) => `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  walk(source, (node) => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      if (isModeName(node.left) || isModeName(node.right)) found.push(`${at(node)} ${node.getText(source)}`);
    } else if (ts.isCaseClause(node) && isModeName(node.expression)) {
      found.push(`${at(node)} case ${node.expression.getText(source)}`);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : '';
      if (name === STORED_MODE_READ) found.push(`${at(node)} ${name}(…)`);
    }
  });
  return found;
}

describe('server/src settlement-mode rules', () => {
  const files = sources().filter((f) => !f.startsWith('generated/'));
  const parsed = new Map(files.map((f) => [f, parse(f, readFileSync(join(ROOT, f), 'utf8'))]));

  it("imports a mode's folder only from inside it, the registry and the composition root", () => {
    const found = [...parsed].flatMap(([file, source]) => modeFolderImports(file, specifiersOf(source)));
    assert.deepEqual(found, []);
  });

  it("compares a settlement mode's name or reads a payment's stored mode only in the registry", () => {
    const found = [...parsed].filter(([file]) => !NAME_OWNERS.includes(file)).flatMap(([, s]) => modeTests(s));
    assert.deepEqual(found, []);
  });

  it('the rules catch each way code has tested a mode, and not what may stay', () => {
    const tests = [
      "if (mode === 'direct') return amount;",
      "const collected = (await settlementModeOfPayment(db, id)) === 'collected';",
      "if ('collected' !== payment.mode) return;",
      "switch (mode) { case 'collected': break; }",
      'const mode = await settlementModeOfPayment(trx, payment.id);',
      'const mode = await queries.settlementModeOfPayment(trx, payment.id);',
    ];
    for (const code of tests) assert.ok(modeTests(parse('example.ts', code)).length > 0, code);
    const allowed = [
      "const entry = { mode: 'collected' as const, kind: 'payable' };",
      'const mode = await settlementModeOf(db, payment);',
      'if (await mode.reachesMerchant(deps, payment, chain)) return;',
      "if (chain.config.mode === 'live') return;",
      "// a payment whose mode === 'collected'",
    ];
    for (const code of allowed) assert.deepEqual(modeTests(parse('example.ts', code)), [], code);

    assert.deepEqual(modeFolderImports('checkout/options.ts', ['../settlement/collected/deposits.js']), [
      'checkout/options.ts → ../settlement/collected/deposits.js',
    ]);
    assert.equal(modeFolderImports('routes/gateway/x.ts', ['../../settlement/direct/index.js']).length, 1);
    assert.equal(modeFolderImports('settlement/refunds.ts', ['./collected/deposits.js']).length, 1);
    assert.equal(modeFolderImports('settlement/direct/index.ts', ['../collected/deposits.js']).length, 1);
    const allowedImports: [string, string][] = [
      ['settlement/modes.ts', './collected/index.js'],
      ['runtime.ts', './settlement/direct/settleDirect.js'],
      ['settlement/collected/index.ts', './deposits.js'],
      ['settlement/collected/detection.ts', '../modes.js'],
      ['checkout/options.ts', '../settlement/modes.js'],
      ['checkout/options.ts', '../settlement/directory.js'],
    ];
    for (const [file, specifier] of allowedImports) {
      assert.deepEqual(modeFolderImports(file, [specifier]), [], `${file} → ${specifier}`);
    }
  });
});
