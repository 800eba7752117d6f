// The tiny expression language of `range` checks and watch filters: comparisons of columns with literals or
// other columns, joined by and/or/not and parentheses, e.g. `price_major > 0 and currency in ('TWD', 'SGD')`.
// It is parsed here into a tree, never spliced into SQL: column names are checked against the table's columns
// and quoted as identifiers, literals become bound parameters. Pure code (no I/O), so `validate` uses it too.

export type Literal = string | number | boolean;
export type Operand = { column: string } | { value: Literal };
export type Expr =
  | { op: 'and' | 'or'; left: Expr; right: Expr }
  | { op: 'not'; expr: Expr }
  | { op: 'cmp'; cmp: '=' | '!=' | '<' | '<=' | '>' | '>='; left: Operand; right: Operand }
  | { op: 'null'; column: string; negated: boolean }
  | { op: 'in'; column: string; values: Literal[]; negated: boolean };

export class ExpressionError extends Error {
  constructor(
    message: string,
    /** 0-based offset in the expression text. */
    readonly offset: number,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

type Token = {
  kind: 'ident' | 'number' | 'string' | 'op' | 'punct' | 'end';
  text: string;
  value?: Literal;
  at: number;
};

const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'null', 'in', 'true', 'false']);

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (/[A-Za-z_]/.test(c)) {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i] as string)) i++;
      out.push({ kind: 'ident', text: src.slice(at, i), at });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(src[i + 1] ?? ''))) {
      i++;
      while (i < src.length && /[0-9.]/.test(src[i] as string)) i++;
      const text = src.slice(at, i);
      const n = Number(text);
      if (!Number.isFinite(n)) throw new ExpressionError(`'${text}' is not a number`, at);
      out.push({ kind: 'number', text, value: n, at });
    } else if (c === "'") {
      let text = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new ExpressionError('unterminated string: close it with a quote', at);
        if (src[i] === "'") {
          if (src[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += src[i];
        i++;
      }
      out.push({ kind: 'string', text, value: text, at });
    } else if ('<>!='.includes(c)) {
      const two = src.slice(i, i + 2);
      const op = ['<=', '>=', '!=', '<>'].includes(two) ? two : c;
      if (op === '!') throw new ExpressionError("'!' alone is not an operator (use != or not)", at);
      i += op.length;
      out.push({ kind: 'op', text: op === '<>' ? '!=' : op, at });
    } else if ('(),'.includes(c)) {
      i++;
      out.push({ kind: 'punct', text: c, at });
    } else {
      throw new ExpressionError(`unexpected character '${c}'`, at);
    }
  }
  out.push({ kind: 'end', text: '', at: src.length });
  return out;
}

export function parseExpression(src: string): Expr {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos] as Token;
  const next = () => tokens[pos++] as Token;
  const isWord = (t: Token, w: string) => t.kind === 'ident' && t.text.toLowerCase() === w;
  const expect = (what: string, ok: (t: Token) => boolean): Token => {
    const t = next();
    if (!ok(t))
      throw new ExpressionError(`expected ${what}, found ${t.kind === 'end' ? 'the end' : `'${t.text}'`}`, t.at);
    return t;
  };
  const column = (): string => {
    const t = expect('a column name', (x) => x.kind === 'ident' && !KEYWORDS.has(x.text.toLowerCase()));
    return t.text;
  };
  const literal = (): Literal => {
    const t = next();
    if (t.kind === 'number' || t.kind === 'string') return t.value as Literal;
    if (isWord(t, 'true')) return true;
    if (isWord(t, 'false')) return false;
    throw new ExpressionError(
      `expected a value (a number, 'text', true or false), found ${t.kind === 'end' ? 'the end' : `'${t.text}'`}`,
      t.at,
    );
  };
  const operand = (): Operand => {
    const t = peek();
    if (t.kind === 'ident' && !KEYWORDS.has(t.text.toLowerCase())) return { column: column() };
    return { value: literal() };
  };
  function primary(): Expr {
    const t = peek();
    if (isWord(t, 'not')) {
      next();
      return { op: 'not', expr: primary() };
    }
    if (t.kind === 'punct' && t.text === '(') {
      next();
      const e = orExpr();
      expect("')'", (x) => x.kind === 'punct' && x.text === ')');
      return e;
    }
    const left = operand();
    const o = peek();
    if (isWord(o, 'is')) {
      next();
      if (!('column' in left)) throw new ExpressionError("'is null' needs a column on its left", o.at);
      const negated = isWord(peek(), 'not');
      if (negated) next();
      expect("'null'", (x) => isWord(x, 'null'));
      return { op: 'null', column: left.column, negated };
    }
    if (isWord(o, 'not') || isWord(o, 'in')) {
      const negated = isWord(o, 'not');
      next();
      if (negated) expect("'in'", (x) => isWord(x, 'in'));
      if (!('column' in left)) throw new ExpressionError("'in' needs a column on its left", o.at);
      expect("'('", (x) => x.kind === 'punct' && x.text === '(');
      const values = [literal()];
      while (peek().kind === 'punct' && peek().text === ',') {
        next();
        values.push(literal());
      }
      expect("')'", (x) => x.kind === 'punct' && x.text === ')');
      return { op: 'in', column: left.column, values, negated };
    }
    const op = expect('a comparison (=, !=, <, <=, >, >=, is null, in (...))', (x) => x.kind === 'op');
    const right = operand();
    if (!('column' in left) && !('column' in right))
      throw new ExpressionError('a comparison needs at least one column', op.at);
    return { op: 'cmp', cmp: op.text as '=', left, right };
  }
  function andExpr(): Expr {
    let e = primary();
    while (isWord(peek(), 'and')) {
      next();
      e = { op: 'and', left: e, right: primary() };
    }
    return e;
  }
  function orExpr(): Expr {
    let e = andExpr();
    while (isWord(peek(), 'or')) {
      next();
      e = { op: 'or', left: e, right: andExpr() };
    }
    return e;
  }
  const e = orExpr();
  const rest = peek();
  if (rest.kind !== 'end')
    throw new ExpressionError(`unexpected '${rest.text}' (join conditions with and / or)`, rest.at);
  return e;
}

/** The columns an expression reads (for validation against a table's columns). */
export function columnsOf(e: Expr): string[] {
  switch (e.op) {
    case 'and':
    case 'or':
      return [...columnsOf(e.left), ...columnsOf(e.right)];
    case 'not':
      return columnsOf(e.expr);
    case 'cmp':
      return [e.left, e.right].flatMap((o) => ('column' in o ? [o.column] : []));
    default:
      return [e.column];
  }
}

/**
 * SQL for an expression: identifiers quoted by `ident`, literals bound through `param` (which returns the
 * placeholder). A comparison with NULL is not true, as in SQL: `range` checks count such rows as failing only
 * when the expression says so (`price is not null and price > 0`).
 */
export function toSql(e: Expr, ident: (column: string) => string, param: (v: Literal) => string): string {
  const operand = (o: Operand) => ('column' in o ? ident(o.column) : param(o.value));
  switch (e.op) {
    case 'and':
    case 'or':
      return `(${toSql(e.left, ident, param)} ${e.op.toUpperCase()} ${toSql(e.right, ident, param)})`;
    case 'not':
      return `(NOT ${toSql(e.expr, ident, param)})`;
    case 'cmp':
      return `(${operand(e.left)} ${e.cmp === '!=' ? '<>' : e.cmp} ${operand(e.right)})`;
    case 'null':
      return `(${ident(e.column)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'in':
      return `(${ident(e.column)} ${e.negated ? 'NOT ' : ''}IN (${e.values.map(param).join(', ')}))`;
  }
}
