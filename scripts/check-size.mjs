// The size a reader can hold: no function over 100 lines and no source file over 320 lines in
// proxy-core, renderer and electron (tests, test helpers and generated data aside). `npm test` runs it
// with the lint; `node scripts/check-size.mjs` lists every offender with its file and line.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const MAX_FUNCTION_LINES = 100;
const MAX_FILE_LINES = 320;
const PARTS = /^(proxy-core|renderer|electron)\//;
const SKIP = /(\.test\.tsx?$|\/test\/|\.d\.ts$|^proxy-core\/engine\/releases\/bundled\/)/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.tsx'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => PARTS.test(f) && !SKIP.test(f));

/** A name a reader would search for: the function's own, or the variable, property or class member it is assigned to. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  return '(anonymous)';
}

const offenders = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // deleted in the work tree but still in the index
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const fileLines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (fileLines > MAX_FILE_LINES) offenders.push(`${file}: ${fileLines} lines (at most ${MAX_FILE_LINES} a file)`);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      if (lines > MAX_FUNCTION_LINES) {
        offenders.push(
          `${file}:${lineOf(node.getStart(source))}: function ${nameOf(node)} is ${lines} lines (at most ${MAX_FUNCTION_LINES})`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (offenders.length > 0) {
  console.error(offenders.join('\n'));
  console.error(`check-size: ${offenders.length} over the limit in ${files.length} source files; split them by concern`);
  process.exit(1);
}
console.log(`check-size: ${files.length} source files, none over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`);
