/**
 * The doc comments of the shared protocol's source (packages/protocol/src), read with the
 * TypeScript parser: zod keeps no trace of a `/** … *\/` comment at run time, and the schemas
 * carry their meaning in those comments rather than in `.describe()`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface SourceComments {
  /** The comment of `export const <name>`. */
  exported: Map<string, string>;
  /** The comments of an exported object's keys (a `z.object({…})` or an `as const` literal), by `<name>.<key>`. */
  keys: Map<string, string>;
  /** The comments of a `z.discriminatedUnion` member, by `<union>.<type literal>`. */
  members: Map<string, string>;
  /** The comments of a union member's fields, by `<union>.<type literal>.<field>`. */
  memberKeys: Map<string, string>;
}

export const PROTOCOL_SOURCE_DIR = join(import.meta.dirname, '../../../../packages/protocol/src');

/** The last `/** … *\/` comment just before `node`, as one line of text; null without one. */
function docComment(node: ts.Node, text: string): string | null {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const doc = ranges.filter((range) => text.startsWith('/**', range.pos)).at(-1);
  if (!doc) return null;
  return text
    .slice(doc.pos + 3, doc.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line.length > 0)
    .join(' ');
}

/** `x as const`, `x satisfies T`, `(x)`: the expression inside. */
function unwrap(node: ts.Expression): ts.Expression {
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) {
    return unwrap(node.expression);
  }
  return node;
}

/** The innermost call of `z.<method>(…)` in a chain such as `z.object({…}).refine(…)`. */
function zodCall(node: ts.Expression, method: string): ts.CallExpression | null {
  const expression = unwrap(node);
  if (!ts.isCallExpression(expression) || !ts.isPropertyAccessExpression(expression.expression)) return null;
  const callee = expression.expression;
  if (callee.name.text === method && ts.isIdentifier(callee.expression) && callee.expression.text === 'z') {
    return expression;
  }
  return zodCall(callee.expression, method);
}

/** The object literal of `z.object({…})` or of an `as const` literal. */
function objectLiteral(node: ts.Expression): ts.ObjectLiteralExpression | null {
  const expression = unwrap(node);
  if (ts.isObjectLiteralExpression(expression)) return expression;
  const argument = zodCall(expression, 'object')?.arguments[0];
  return argument && ts.isObjectLiteralExpression(argument) ? argument : null;
}

function propertyName(property: ts.ObjectLiteralElementLike): string | null {
  if (!property.name) return null;
  if (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) return property.name.text;
  return null;
}

function keyComments(
  literal: ts.ObjectLiteralExpression,
  text: string,
  prefix: string,
  into: Map<string, string>,
) {
  for (const property of literal.properties) {
    const name = propertyName(property);
    const doc = docComment(property, text);
    if (name && doc) into.set(`${prefix}.${name}`, doc);
  }
}

/** `type: z.literal('drive')` in a union member: `drive`. */
function typeLiteral(literal: ts.ObjectLiteralExpression): string | null {
  for (const property of literal.properties) {
    if (propertyName(property) !== 'type' || !ts.isPropertyAssignment(property)) continue;
    const argument = zodCall(property.initializer, 'literal')?.arguments[0];
    if (argument && ts.isStringLiteral(argument)) return argument.text;
  }
  return null;
}

function readFile(file: string, comments: SourceComments): void {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if (!statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const statementDoc = docComment(statement, text);
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
      const name = declaration.name.text;
      if (statementDoc) comments.exported.set(name, statementDoc);
      const literal = objectLiteral(declaration.initializer);
      if (literal) keyComments(literal, text, name, comments.keys);
      const union = zodCall(declaration.initializer, 'discriminatedUnion')?.arguments[1];
      if (!union || !ts.isArrayLiteralExpression(union)) continue;
      for (const element of union.elements) {
        const member = objectLiteral(element);
        const type = member && typeLiteral(member);
        if (!member || !type) continue;
        const doc = docComment(element, text);
        if (doc) comments.members.set(`${name}.${type}`, doc);
        keyComments(member, text, `${name}.${type}`, comments.memberKeys);
      }
    }
  }
}

/** Every comment of the protocol's source files (tests excluded). */
export function readSourceComments(dir: string = PROTOCOL_SOURCE_DIR): SourceComments {
  const comments: SourceComments = {
    exported: new Map(),
    keys: new Map(),
    members: new Map(),
    memberKeys: new Map(),
  };
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort();
  for (const file of files) readFile(join(dir, file), comments);
  return comments;
}
