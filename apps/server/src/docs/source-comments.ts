/**
 * The doc comments of the shared protocol's source (packages/protocol/src), read with Babel's
 * TypeScript parser: zod keeps no trace of a `/** … *\/` comment at run time, and the schemas
 * carry their meaning in those comments rather than in `.describe()`. (TypeScript 7, the
 * compiler the typecheck runs, has no JavaScript API to parse with.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@babel/parser';
import type { ArrayExpression, CallExpression, Node, ObjectExpression } from '@babel/types';

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
function docComment(node: Node): string | null {
  const doc = (node.leadingComments ?? [])
    .filter((c) => c.type === 'CommentBlock' && c.value.startsWith('*'))
    .at(-1);
  if (!doc) return null;
  return doc.value
    .slice(1)
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line.length > 0)
    .join(' ');
}

/** `x as const`, `x satisfies T`: the expression inside (parentheses leave no node). */
function unwrap(node: Node): Node {
  if (node.type === 'TSAsExpression' || node.type === 'TSSatisfiesExpression') return unwrap(node.expression);
  return node;
}

/** The innermost call of `z.<method>(…)` in a chain such as `z.object({…}).refine(…)`. */
function zodCall(node: Node, method: string): CallExpression | null {
  const expression = unwrap(node);
  if (expression.type !== 'CallExpression' || expression.callee.type !== 'MemberExpression') return null;
  const callee = expression.callee;
  const name = callee.property.type === 'Identifier' ? callee.property.name : null;
  if (name === method && callee.object.type === 'Identifier' && callee.object.name === 'z') return expression;
  return zodCall(callee.object, method);
}

/** The object literal of `z.object({…})` or of an `as const` literal. */
function objectLiteral(node: Node): ObjectExpression | null {
  const expression = unwrap(node);
  if (expression.type === 'ObjectExpression') return expression;
  const argument = zodCall(expression, 'object')?.arguments[0];
  return argument?.type === 'ObjectExpression' ? argument : null;
}

function propertyName(property: ObjectExpression['properties'][number]): string | null {
  if (property.type === 'SpreadElement') return null;
  if (property.key.type === 'Identifier') return property.key.name;
  if (property.key.type === 'StringLiteral') return property.key.value;
  return null;
}

function keyComments(literal: ObjectExpression, prefix: string, into: Map<string, string>) {
  for (const property of literal.properties) {
    const name = propertyName(property);
    const doc = docComment(property);
    if (name && doc) into.set(`${prefix}.${name}`, doc);
  }
}

/** `type: z.literal('drive')` in a union member: `drive`. */
function typeLiteral(literal: ObjectExpression): string | null {
  for (const property of literal.properties) {
    if (propertyName(property) !== 'type' || property.type !== 'ObjectProperty') continue;
    const argument = zodCall(property.value, 'literal')?.arguments[0];
    if (argument?.type === 'StringLiteral') return argument.value;
  }
  return null;
}

function unionComments(name: string, union: ArrayExpression, comments: SourceComments): void {
  for (const element of union.elements) {
    if (!element || element.type === 'SpreadElement') continue;
    const member = objectLiteral(element);
    const type = member && typeLiteral(member);
    if (!member || !type) continue;
    const doc = docComment(element);
    if (doc) comments.members.set(`${name}.${type}`, doc);
    keyComments(member, `${name}.${type}`, comments.memberKeys);
  }
}

function readFile(file: string, comments: SourceComments): void {
  const text = readFileSync(file, 'utf8');
  const source = parse(text, { sourceType: 'module', plugins: ['typescript'], sourceFilename: file });
  for (const statement of source.program.body) {
    if (statement.type !== 'ExportNamedDeclaration' || statement.declaration?.type !== 'VariableDeclaration')
      continue;
    const statementDoc = docComment(statement);
    for (const declaration of statement.declaration.declarations) {
      if (declaration.id.type !== 'Identifier' || !declaration.init) continue;
      const name = declaration.id.name;
      if (statementDoc) comments.exported.set(name, statementDoc);
      const literal = objectLiteral(declaration.init);
      if (literal) keyComments(literal, name, comments.keys);
      const union = zodCall(declaration.init, 'discriminatedUnion')?.arguments[1];
      if (union?.type === 'ArrayExpression') unionComments(name, union, comments);
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
