/**
 * The length in lines of every function of a TypeScript source (declarations,
 * expressions, arrows, methods, accessors and constructors), read with the
 * TypeScript compiler API. A function's lines run from its first token to its
 * closing brace, nested functions included.
 */
import ts from "typescript";

/** One function of a source: where it starts and how many lines it spans. */
export interface FunctionLength {
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name !== undefined) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  // an arrow or function expression assigned to a variable or property takes that name
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  return "(anonymous)";
}

/** Every function of `text` (a file named `fileName`) with its length in lines. */
export function functionLengths(fileName: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: functionName(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
