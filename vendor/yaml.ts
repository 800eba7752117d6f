// The `yaml` package, as the product uses it; bundled into one file by the build (vendor/README.md).
export {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  parse,
  parseDocument,
  stringify,
  visit,
  Scalar,
} from 'yaml';
export type { Document, Node, Pair } from 'yaml';
