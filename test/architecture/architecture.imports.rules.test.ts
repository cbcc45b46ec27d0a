/**
 * The rules of server/src that a reader relies on and a compiler does not check:
 * - no import cycle between its files, nor between its top-level folders (a root file such as runtime.ts or
 *   config.ts is a node of its own), so the arrows run one way: routes → domain → chains, db, jobs;
 * - only `chains/<namespace>/` names a namespace or a namespace's kind of option, so a third namespace touches chains/
 *   and the contract only;
 * - outside chains/, code reaches chains/ through its entries only (`CHAINS_ENTRIES`) and reads no property named
 *   after a namespace (`chains.evm`), so what a namespace is made of can change without touching its callers;
 * - no two modules share a file name, so a name in a stack trace or an import points at one concept.
 * Type-only imports count: they are arrows a reader follows as much as any other.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, posix, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(process.cwd(), 'server/src');

/** Not sources of this package's architecture: generated from the contracts. */
const GENERATED = /^generated\//;
/** Where a namespace may be named: its own folder. */
const NAMESPACE_FOLDER = /^chains\/(eip155|solana)\//;
/**
 * What code outside chains/ may import from it: the port (adapter.ts), the assembly of the namespaces (adapters.ts)
 * and everything else chains/ offers (index.ts: starting the chains, `allChains`, the dev chains and their faucet).
 * The rest of chains/ is a namespace's own or how the entries are built.
 */
const CHAINS_ENTRIES = ['chains/adapter.ts', 'chains/adapters.ts', 'chains/index.ts'];
/** Properties named after a namespace: `Chains`' own lists (`chains.evm`, `chains.solana`) and the local chains'. */
const NAMESPACE_PROPERTY = /^(evm|eip155|solana)$/;

function sources(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

const files = sources().filter((f) => !GENERATED.test(f));
const parsed = new Map(
  files.map((f) => [f, ts.createSourceFile(f, readFileSync(join(ROOT, f), 'utf8'), ts.ScriptTarget.Latest, true)]),
);

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

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

/** The top-level folder of a file, or the file itself at the root (`config.ts`, `runtime.ts`). */
const nodeOf = (file: string) => file.split('/')[0]!;

/** A graph of import arrows: for each node, the nodes it imports, each with one import that makes the arrow. */
type Graph = Map<string, Map<string, string>>;

/**
 * The file a relative specifier names, as the compiler resolves it under NodeNext: `./config.js` is `config.ts`,
 * `./chains` or `./chains/index.js` is `chains/index.ts`. A specifier that names no source (a package, a `.json`
 * preset, a generated file) gives null: it cannot close a cycle.
 */
function resolveImport(file: string, specifier: string, known: ReadonlySet<string>): string | null {
  if (!specifier.startsWith('.')) return null;
  const target = posix.normalize(posix.join(dirname(file), specifier));
  const stem = target.replace(/\.js$/, '');
  const found = [`${stem}.ts`, `${stem}/index.ts`, target].find((candidate) => known.has(candidate));
  return found && !GENERATED.test(found) ? found : null;
}

/** The file-level import graph of `imports` (each file with its specifiers). */
function fileGraph(imports: ReadonlyMap<string, readonly string[]>): Graph {
  const known = new Set(imports.keys());
  const graph: Graph = new Map();
  for (const [file, specifiers] of imports) {
    const edges = new Map<string, string>();
    for (const specifier of specifiers) {
      const target = resolveImport(file, specifier, known);
      if (target && !edges.has(target)) edges.set(target, `${file} → ${specifier}`);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The same graph with each file replaced by its top-level folder or root file; arrows inside one node dropped. */
function folderGraph(files: Graph): Graph {
  const graph: Graph = new Map();
  for (const [file, edges] of files) {
    const from = nodeOf(file);
    const folded = graph.get(from) ?? new Map<string, string>();
    for (const [target, via] of edges) {
      const to = nodeOf(target);
      if (to !== from && !folded.has(to)) folded.set(to, via);
    }
    graph.set(from, folded);
  }
  return graph;
}

/** One import path from `from` to `to` inside `within`, as the imports that make it. */
function pathBetween(graph: Graph, from: string, to: string, within: ReadonlySet<string>): string[] {
  const seen = new Set([from]);
  const queue: [string, string[]][] = [[from, []]];
  while (queue.length > 0) {
    const [at, path] = queue.shift()!;
    for (const [next, via] of graph.get(at) ?? []) {
      if (next === to) return [...path, via];
      if (within.has(next) && !seen.has(next)) {
        seen.add(next);
        queue.push([next, [...path, via]]);
      }
    }
  }
  return [];
}

/**
 * Every cycle of `graph`, one line per strongly connected component (Tarjan): its nodes, then one import path
 * round it, so a failure names what to cut.
 */
function cyclesOf(graph: Graph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length === 1 && !graph.get(node)?.has(node)) return;
    const members = new Set(component);
    const [first] = [...members].sort();
    const [second] = [...(graph.get(first!)?.keys() ?? [])].filter((n) => members.has(n));
    const round = [
      graph.get(first!)!.get(second!)!,
      ...(second === first ? [] : pathBetween(graph, second!, first!, members)),
    ];
    found.push(`${[...members].sort().join(' ↔ ')}: ${round.join(', ')}`);
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found.sort();
}

/** A namespace, a namespace's kind of option, as a whole string; a CAIP prefix or a kind inside any text. */
const WHOLE = /^(eip155|solana|eip3009|erc20|native)$/;
const INSIDE = /\b(eip155|solana):|\b(eip3009|erc20)\b/;
const KIND_NAME = /^(eip3009|erc20)$/;

/**
 * Comments may name a namespace: they explain (an example id, the namespace a rule came from) and change nothing.
 * Module specifiers are paths, not values. Everything else that reaches the program is checked: strings, templates,
 * regular expressions, and identifiers named after a kind (a property such as `eip3009`).
 */
function namespaceMentions(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const at = (node: ts.Node) => `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  walk(source, (node) => {
    const parent = node.parent;
    const isSpecifier =
      parent && (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) && parent.moduleSpecifier === node;
    if (isSpecifier) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (WHOLE.test(node.text) || INSIDE.test(node.text)) found.push(`${at(node)} ${JSON.stringify(node.text)}`);
    } else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (INSIDE.test(node.text)) found.push(`${at(node)} \`${node.text}\``);
    } else if (ts.isRegularExpressionLiteral(node)) {
      if (INSIDE.test(node.text)) found.push(`${at(node)} ${node.text}`);
    } else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (KIND_NAME.test(node.text)) found.push(`${at(node)} ${node.text}`);
    }
  });
  return found;
}

/** The imports of a file outside chains/ that reach into chains/ past its entries, with the module they name. */
function chainsInternals(file: string, specifiers: string[]): string[] {
  if (file.startsWith('chains/')) return [];
  return specifiers.flatMap((specifier) => {
    if (!specifier.startsWith('.')) return [];
    const target = posix.normalize(posix.join(dirname(file), specifier)).replace(/\.js$/, '.ts');
    return target.startsWith('chains/') && !CHAINS_ENTRIES.includes(target) ? [`${file} → ${specifier}`] : [];
  });
}

/**
 * Reads of a property named after a namespace: `x.evm`, `x?.solana`, `x['evm']`, and `const { evm } = x`. Any
 * receiver counts: outside chains/ no object has a reason to be keyed by namespace.
 */
function namespaceProperties(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const at = (node: ts.Node) => `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  walk(source, (node) => {
    let name: ts.Node | undefined;
    if (ts.isPropertyAccessExpression(node)) name = node.name;
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
      name = node.argumentExpression;
    } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent))
      name = node.propertyName ?? node.name;
    const text = name && (ts.isIdentifier(name) || ts.isStringLiteralLike(name)) ? name.text : null;
    if (text !== null && NAMESPACE_PROPERTY.test(text)) found.push(`${at(node)} ${node.getText(source)}`);
  });
  return found;
}

const parse = (code: string) => ts.createSourceFile('example.ts', code, ts.ScriptTarget.Latest, true);

/** The operationIds of a surface's contract, read from its generated types (`export interface operations`). */
function operationIdsOf(surface: string): Set<string> {
  let text: string;
  try {
    text = readFileSync(join(ROOT, 'generated', `${surface}.ts`), 'utf8');
  } catch {
    return new Set();
  }
  const body = text.slice(text.indexOf('export interface operations {'));
  return new Set([...body.matchAll(/^ {4}([A-Za-z0-9_]+): \{$/gm)].map((m) => m[1]!));
}

/**
 * Where two files may share a name: a folder's `index.ts`; a route handler named after its contract operationId in
 * its surface's folder (routes/merchant/getPayment.ts, routes/gateway/getPayment.ts); the same role in each
 * namespace's folder (chains/eip155/adapter.ts, chains/solana/adapter.ts), qualified by that folder.
 */
function nameKey(file: string): string | null {
  const name = basename(file);
  if (name === 'index.ts') return null;
  const route = /^routes\/([^/]+)\/([^/]+)\.ts$/.exec(file);
  if (route && operationIdsOf(route[1]!).has(route[2]!)) return null;
  const namespace = NAMESPACE_FOLDER.exec(file)?.[1];
  return namespace ? `${namespace}/${name}` : name;
}

describe('server/src architecture rules', () => {
  const imports = new Map([...parsed].map(([file, source]) => [file, specifiersOf(source)]));

  it('has no import cycle between its files', () => {
    assert.deepEqual(cyclesOf(fileGraph(imports)), []);
  });

  it('has no import cycle between its top-level folders and root files', () => {
    assert.deepEqual(cyclesOf(folderGraph(fileGraph(imports))), []);
  });

  it('the cycle rules see a cycle through a root file, a folder-level cycle and an index import', () => {
    // config.ts imported settlement/seed.ts, whose chain of imports led back to config.ts: named `config.js` in
    // the specifier, `config.ts` on disk.
    const throughRoot = new Map([
      ['config.ts', ['./settlement/seed.js']],
      ['settlement/seed.ts', ['../chains/index.js']],
      ['chains/index.ts', ['./local.js']],
      ['chains/local.ts', ['../config.js']],
    ]);
    assert.deepEqual(cyclesOf(fileGraph(throughRoot)), [
      'chains/index.ts ↔ chains/local.ts ↔ config.ts ↔ settlement/seed.ts: chains/index.ts → ./local.js, ' +
        'chains/local.ts → ../config.js, config.ts → ./settlement/seed.js, settlement/seed.ts → ../chains/index.js',
    ]);
    assert.deepEqual(cyclesOf(folderGraph(fileGraph(throughRoot))), [
      'chains ↔ config.ts ↔ settlement: chains/local.ts → ../config.js, config.ts → ./settlement/seed.js, ' +
        'settlement/seed.ts → ../chains/index.js',
    ]);

    // No file imports itself back, yet the folders do: quotes/ → payments/ by one file, payments/ → quotes/ by another.
    const folders = new Map([
      ['quotes/pricing.ts', ['../payments']],
      ['payments/index.ts', ['./amounts.js']],
      ['payments/amounts.ts', []],
      ['payments/lifecycle.ts', ['../quotes/rates.js']],
      ['quotes/rates.ts', ['pg']],
    ]);
    assert.deepEqual(cyclesOf(fileGraph(folders)), []);
    assert.deepEqual(cyclesOf(folderGraph(fileGraph(folders))), [
      'payments ↔ quotes: payments/lifecycle.ts → ../quotes/rates.js, quotes/pricing.ts → ../payments',
    ]);

    const acyclic = new Map([
      ['runtime.ts', ['./config.js', './chains/index.js']],
      ['chains/index.ts', ['../config.js']],
      ['config.ts', ['./configVariables.js', './chains/presets/live.json']],
      ['configVariables.ts', []],
    ]);
    assert.deepEqual(cyclesOf(folderGraph(fileGraph(acyclic))), []);
    assert.deepEqual(cyclesOf(fileGraph(acyclic)), []);
  });

  it('names a namespace or a kind of option only inside chains/<namespace>/', () => {
    const mentions = [...parsed]
      .filter(([file]) => !NAMESPACE_FOLDER.test(file))
      .flatMap(([, source]) => namespaceMentions(source));
    assert.deepEqual(mentions, []);
  });

  it('the chains rules catch each way code outside chains/ has reached into it, and not what may stay', () => {
    const reads = [
      'const list = chains.evm.map((c) => c.config);',
      'const served = checkout.chains.solana.filter((c) => c.config.mode === mode);',
      'const configured = [...(chains?.evm ?? []), ...(chains?.solana ?? [])];',
      "const first = deps.chains['evm'][0];",
      'const { evm, solana } = local;',
      'const { solana: chain } = local;',
    ];
    for (const code of reads) assert.equal(namespaceProperties(parse(code)).length > 0, true, code);
    const allowedReads = [
      'const served = allChains(chains).filter((c) => c.transactionRequests);',
      'const link = config.solanaPayLink;',
      'const evm = createEvmAdapter(chains, db);',
      '// chains.evm is read in chains/ only',
      "const text = 'chains.solana';",
      "import { evmDevChain } from './eip155/devChain.js';",
    ];
    for (const code of allowedReads) assert.deepEqual(namespaceProperties(parse(code)), [], code);

    assert.deepEqual(chainsInternals('checkout/solanaPay.ts', ['../chains/solana/pay.js']), [
      'checkout/solanaPay.ts → ../chains/solana/pay.js',
    ]);
    assert.equal(chainsInternals('routes/dev/devFaucet.ts', ['../../chains/faucet.js']).length, 1);
    assert.equal(chainsInternals('quotes/pricing.ts', ['../chains/chainsSetting.js']).length, 1);
    const allowedImports: [string, string][] = [
      ['checkout/context.ts', '../chains/adapters.js'],
      ['routes/dev/listDevChains.ts', '../../chains/index.js'],
      ['runtime.ts', './chains/index.js'],
      ['checkout/options.ts', '../chains/adapter.js'],
      ['chains/solana/pay.ts', './transfer.js'],
      ['chains/adapters.ts', './solana/adapter.js'],
      ['quotes/pricing.ts', 'viem'],
      ['checkout/solanaPay.ts', '../db/queries/solanaPayRequests.js'],
    ];
    for (const [file, specifier] of allowedImports) {
      assert.deepEqual(chainsInternals(file, [specifier]), [], `${file} → ${specifier}`);
    }
  });

  it('reaches chains/ from outside only through its entries, and reads no property named after a namespace', () => {
    const found = [...parsed]
      .filter(([file]) => !file.startsWith('chains/'))
      .flatMap(([file, source]) => [...chainsInternals(file, specifiersOf(source)), ...namespaceProperties(source)]);
    assert.deepEqual(found, []);
  });

  it('gives no two modules the same file name', () => {
    const byKey = new Map<string, string[]>();
    for (const file of sources().filter((f) => !GENERATED.test(f))) {
      const key = nameKey(file);
      if (key) byKey.set(key, [...(byKey.get(key) ?? []), file]);
    }
    const shared = [...byKey].filter(([, list]) => list.length > 1);
    assert.deepEqual(shared, []);
  });
});
