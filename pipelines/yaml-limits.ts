// Resource limits of the YAML files the product reads (pipeline files, pipelines/loader.ts; the project file,
// cli/project-schema.ts): how deep a document may nest and how much its aliases may expand, measured before the
// library composes or expands it, so a hostile file is a problem at its line and column instead of a stack overflow
// or gigabytes of memory. Light (the yaml package alone): the project file's checks load it.
import { Composer, isAlias, isMap, isSeq, Lexer, Parser, visit, YAMLParseError } from '../vendor/yaml.js';
import type { CST, Document, DocumentOptions, Node, ParseOptions, SchemaOptions } from '../vendor/yaml.js';

/**
 * Deepest nesting accepted (collections inside collections, as the YAML parser counts them). The example
 * pipelines use under 10; the library composes documents recursively and a few thousand levels overflow the
 * stack, which used to surface as "YAML syntax error: Maximum call stack size exceeded" at a random place.
 */
export const MAX_NESTING = 64;
/**
 * Most nodes that aliases may add when the document is expanded. Anchors and aliases are legitimate YAML (a
 * shared block reused twice), but nine aliases of nine aliases of ... ("billion laughs") turn 1 kB into
 * gigabytes; the library's own guard threw a bare ReferenceError that the CLI reported without a place.
 */
export const MAX_ALIAS_EXPANSION = 10_000;
function nodeStart(node: Node | null | undefined): number | undefined {
  return node?.range?.[0];
}

/** Offset of the first token at which the parser's collection stack passes `max`, or undefined. */
export function nestingBeyond(text: string, max: number): number | undefined {
  const parser = new Parser();
  // parser.stack holds the document, then one entry per open collection (and the scalar being read).
  const limit = max + 1;
  for (const lexeme of new Lexer().lex(text)) {
    const start = parser.offset;
    for (const _token of parser.next(lexeme)) {
      // Tokens of finished documents: not needed, only the depth reached while reading them.
    }
    if (parser.stack.length > limit) return start;
  }
  return undefined;
}

/**
 * The document of `text` as yaml's parseDocument makes it, read in the same pass that measures how deep it nests:
 * the offset at which the parser's collection stack passes `max` instead (nothing composed then, so the library's
 * recursion never meets it). One lexing and parsing of the file where nestingBeyond and parseDocument made two.
 * (Errors are left as the library words them: no `prettyErrors`.)
 */
export function parseDocumentWithin(
  text: string,
  max: number,
  options: ParseOptions & DocumentOptions & SchemaOptions & { prettyErrors: false },
): Document | number {
  const parser = new Parser(options.lineCounter?.addNewLine);
  // What Parser.parse does at the start of a source, before its first lexeme.
  options.lineCounter?.addNewLine(0);
  const tokens: CST.Token[] = [];
  const limit = max + 1;
  for (const lexeme of new Lexer().lex(text)) {
    const start = parser.offset;
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > limit) return start;
  }
  for (const token of parser.end()) tokens.push(token);
  // As parseDocument: the first document, and an error at the second when there are more.
  let doc: Document | undefined;
  for (const next of new Composer(options).compose(tokens, true, text.length)) {
    if (doc === undefined) doc = next;
    else if (doc.options.logLevel !== 'silent') {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  // compose(tokens, true) ends with a document, an empty one for an empty source.
  return doc!;
}

/**
 * Walks the document in order, adding up how many nodes each alias stands for, and returns the alias at which
 * the total passes MAX_ALIAS_EXPANSION (or that refers to a node containing it). Sizes are memoised per node,
 * so the walk itself stays linear in the file however large the expansion is; depth is bounded by MAX_NESTING.
 */
/** `what`: the kind of file, named in the message (`a pipeline file`, `a project file`). */
export function aliasExpansionProblem(
  doc: Document,
  what = 'a pipeline file',
): { offset: number | undefined; message: string } | undefined {
  const sizes = new Map<unknown, number>();
  const open = new Set<unknown>();
  let cycle: { offset: number | undefined; name: string } | undefined;
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target === undefined) return 1;
      if (open.has(target)) {
        cycle ??= { offset: nodeStart(node), name: node.source };
        return 1;
      }
      return sizeOf(target);
    }
    const known = sizes.get(node);
    if (known !== undefined) return known;
    open.add(node);
    let size = 1;
    if (isMap(node)) for (const pair of node.items) size += sizeOf(pair.key) + sizeOf(pair.value);
    else if (isSeq(node)) for (const item of node.items) size += sizeOf(item);
    open.delete(node);
    sizes.set(node, size);
    return size;
  };
  let expanded = 0;
  let found: { offset: number | undefined; name: string } | undefined;
  visit(doc, {
    Alias(_key, node) {
      expanded += sizeOf(node);
      if (cycle !== undefined) return visit.BREAK;
      if (expanded > MAX_ALIAS_EXPANSION) {
        found = { offset: nodeStart(node), name: node.source };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (cycle !== undefined) {
    return {
      offset: cycle.offset,
      message: `alias *${cycle.name} refers to a node that contains it; ${what} cannot hold cyclic data`,
    };
  }
  if (found !== undefined) {
    return {
      offset: found.offset,
      message: `aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes at alias *${found.name}; ${what} has no use for such expansion (a "billion laughs" file?)`,
    };
  }
  return undefined;
}
