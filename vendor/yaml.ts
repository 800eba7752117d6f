// The `yaml` package, as the product uses it; bundled into one file by the build (vendor/README.md).
export {
  Composer,
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
  YAMLParseError,
} from 'yaml';
export type {
  CST,
  Document,
  DocumentOptions,
  LineCounter as LineCounterType,
  Node,
  Pair,
  ParseOptions,
  SchemaOptions,
} from 'yaml';
