// The formatter's settings, matching the code as written by hand: 120-character lines, single quotes, semicolons,
// trailing commas wherever ES2022 allows them, parentheses around every arrow parameter. `npm run format` writes,
// `npm run format:check` only reports.
export default {
  printWidth: 120,
  singleQuote: true,
  semi: true,
  trailingComma: 'all',
  arrowParens: 'always',
  bracketSpacing: true,
  endOfLine: 'lf',
  // Template literals are the product's output (the console's HTML and CSS, messages): their text is kept as written.
  embeddedLanguageFormatting: 'off',
};
