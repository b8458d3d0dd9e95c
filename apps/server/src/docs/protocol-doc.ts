/**
 * docs/protocol.md's generated part: the messages of the car, control and event sockets, written
 * from the shared zod schemas (@telerace/protocol) and their source comments, and the race's
 * commands from their table (modules/races/race-commands.ts). `npm run docs:protocol -w
 * apps/server` writes it; protocol-doc.test.ts fails when the file is stale.
 */
import * as protocol from '@telerace/protocol';
import {
  BROWSER_PROTOCOL_VERSION,
  CAR_PROTOCOL_VERSION,
  CarAgentMessage,
  CONTROL_LIMITS,
  ControllerMessage,
  ControllerServerMessage,
  DISCONNECT_REASONS,
  DriveChannelMessage,
  DriveChannelServerMessage,
  EventClientMessage,
  EventServerMessage,
  MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION,
  MIN_SUPPORTED_CAR_PROTOCOL_VERSION,
  ServerCarMessage,
  SOCKET_CLOSE_CODES,
} from '@telerace/protocol';
import { z } from 'zod';
import { RACE_COMMANDS } from '../modules/races/race-commands.js';
import { readSourceComments, type SourceComments } from './source-comments.js';

export const PROTOCOL_START = '<!-- protocol:start -->';
export const PROTOCOL_END = '<!-- protocol:end -->';

type Schema = z.ZodType;
type ObjectSchema = z.ZodObject;
type UnionSchema = z.ZodDiscriminatedUnion<ObjectSchema[]>;

/** One direction of a socket: the union of its messages and its export name (its comments' key). */
interface MessageSet {
  name: string;
  union: UnionSchema;
  direction: string;
}

interface SocketDoc {
  title: string;
  /** How the socket is opened: path and query. */
  url: string;
  /** Who opens it and with which credentials. */
  opener: string;
  sets: MessageSet[];
}

/** The JSON sockets (the /janus video socket speaks Janus's own protocol, see docs/video.md). */
export const SOCKETS: readonly SocketDoc[] = [
  {
    title: 'Car socket',
    url: '/rcsocket?type=car&car=<car id>',
    opener:
      'the car agent (apps/car), with the header `Authorization: Bearer <car secret>`; one socket per car, a newer one replaces the older (close code 4000).',
    sets: [
      { name: 'CarAgentMessage', union: CarAgentMessage, direction: 'car agent → server' },
      { name: 'ServerCarMessage', union: ServerCarMessage, direction: 'server → car agent' },
    ],
  },
  {
    title: 'Control socket',
    url: '/rcsocket?type=controller&car=<car id>&token=<access token>&control_token=<control token>',
    opener:
      "a driver's browser on the site's own origin, with a member's access token and the control token of the driving session that holds the car (`POST /api/cars/connect`).",
    sets: [
      { name: 'ControllerMessage', union: ControllerMessage, direction: 'browser → server' },
      { name: 'ControllerServerMessage', union: ControllerServerMessage, direction: 'server → browser' },
    ],
  },
  {
    title: 'Drive channel',
    url: 'WebRTC DataChannel "drive", unordered, maxRetransmits 0',
    opener:
      'a driver\'s browser beside its control socket, which signals it (`rtc_offer`, `rtc_candidate` → `rtc_answer`): drives only, each numbered; while it is not open, or not acknowledged within DRIVE_CHANNEL.ackTimeoutMs, the drives go over the control socket (docs/driving.md "The drive channel").',
    sets: [
      { name: 'DriveChannelMessage', union: DriveChannelMessage, direction: 'browser → server' },
      { name: 'DriveChannelServerMessage', union: DriveChannelServerMessage, direction: 'server → browser' },
    ],
  },
  {
    title: 'Event socket',
    url: '/api/race-ws?token=<access token>',
    opener: "a member's browser on the site's own origin, with the member's access token.",
    sets: [
      { name: 'EventClientMessage', union: EventClientMessage, direction: 'browser → server' },
      { name: 'EventServerMessage', union: EventServerMessage, direction: 'server → browser' },
    ],
  },
];

const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/** A table row's text in one cell: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function table(header: string[], rows: string[][]): string {
  return [header, header.map(() => '---'), ...rows]
    .map((cells) => `| ${cells.map(cell).join(' | ')} |`)
    .join('\n');
}

function anchor(name: string): string {
  return name.toLowerCase();
}

/** The exported object schemas by identity, so a field that uses one is shown by its name. */
function namedObjects(): Map<Schema, string> {
  const names = new Map<Schema, string>();
  for (const [name, value] of Object.entries(protocol)) {
    if (!(value instanceof z.ZodObject)) continue;
    // One schema exported under several names (an alias): the shortest.
    const known = names.get(value);
    if (known === undefined || name.length < known.length) names.set(value, name);
  }
  return names;
}

interface JsonLeaf {
  type?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** A range in words; the safe-integer bounds zod gives every `.int()` say nothing. */
function rangeText(min: number | undefined, max: number | undefined): string {
  const low = min === undefined || min <= -SAFE_INTEGER_BOUND ? undefined : min;
  const high = max === undefined || max >= SAFE_INTEGER_BOUND ? undefined : max;
  if (low !== undefined && high !== undefined) return low === high ? `${low}` : `from ${low} to ${high}`;
  if (low !== undefined) return `≥ ${low}`;
  if (high !== undefined) return `≤ ${high}`;
  return '';
}

/** Strings, numbers and booleans, in words, from their JSON Schema (which knows their checks). */
function leafType(schema: Schema): string {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonLeaf;
  switch (json.type) {
    case 'string': {
      if (json.format === 'date-time') return 'ISO 8601 time';
      const length = rangeText(json.minLength, json.maxLength);
      return length ? `string (${length} chars)` : 'string';
    }
    case 'integer':
    case 'number': {
      const range = rangeText(json.minimum, json.maximum);
      return range ? `${json.type} ${range}` : json.type;
    }
    case 'boolean':
      return 'boolean';
    default:
      return json.type ?? 'any';
  }
}

/** Writes types in words, and collects the named objects they use (shown in their own tables). */
class TypeWriter {
  readonly used: string[] = [];
  constructor(private readonly names: Map<Schema, string>) {}

  /** The named object's name, queued for the shared payloads; undefined for other schemas. */
  nameOf(schema: Schema): string | undefined {
    const name = this.names.get(schema);
    if (name !== undefined && !this.used.includes(name)) this.used.push(name);
    return name;
  }

  type(schema: Schema): string {
    const name = this.nameOf(schema);
    if (name !== undefined) return `[${name}](#${anchor(name)})`;
    if (
      schema instanceof z.ZodOptional ||
      schema instanceof z.ZodDefault ||
      schema instanceof z.ZodReadonly
    ) {
      return this.type(schema.def.innerType as Schema);
    }
    if (schema instanceof z.ZodNullable) return `${this.type(schema.def.innerType as Schema)} or null`;
    if (schema instanceof z.ZodArray) return `array of ${this.type(schema.element as Schema)}`;
    if (schema instanceof z.ZodObject) {
      const fields = Object.entries(schema.shape as Record<string, Schema>).map(
        ([field, value]) => `${fieldName(field, value)}: ${this.type(value)}`,
      );
      return `{ ${fields.join(', ')} }`;
    }
    if (schema instanceof z.ZodLiteral) {
      return [...schema.values].map((value) => `\`${JSON.stringify(value)}\``).join(' or ');
    }
    if (schema instanceof z.ZodEnum) {
      const values = schema.options.map(String);
      return values.length === 1
        ? `\`"${values[0]}"\``
        : `one of ${values.map((value) => `\`${value}\``).join(', ')}`;
    }
    return leafType(schema);
  }
}

/** `name`, or `name?` when the field may be left out. */
function fieldName(field: string, schema: Schema): string {
  return schema.safeParse(undefined).success ? `${field}?` : field;
}

function fieldsCell(object: ObjectSchema, types: TypeWriter): string {
  const fields = Object.entries(object.shape).filter(([field]) => field !== 'type');
  if (fields.length === 0) return '—';
  return fields.map(([field, value]) => `\`${fieldName(field, value)}\`: ${types.type(value)}`).join('<br>');
}

/** The message's comment, then its fields' comments. */
function meaningCell(lines: (string | undefined)[]): string {
  const text = lines.filter((line): line is string => Boolean(line));
  return text.length === 0 ? '' : text.join('<br>');
}

function messageTable(set: MessageSet, comments: SourceComments, types: TypeWriter): string {
  const rows = set.union.options.map((option) => {
    const type = String(option.shape.type.value);
    // A shared member (SocketErrorMessage) carries its comments under its own name.
    const shared = types.nameOf(option);
    const fieldKey = (field: string) =>
      shared
        ? comments.keys.get(`${shared}.${field}`)
        : comments.memberKeys.get(`${set.name}.${type}.${field}`);
    const doc = shared ? comments.exported.get(shared) : comments.members.get(`${set.name}.${type}`);
    const fieldDocs = Object.keys(option.shape)
      .filter((field) => field !== 'type')
      .map((field) => {
        const fieldDoc = fieldKey(field);
        return fieldDoc ? `\`${field}\`: ${fieldDoc}` : undefined;
      });
    return [`\`${type}\``, fieldsCell(option, types), meaningCell([doc, ...fieldDocs])];
  });
  const title = `### ${set.direction[0]?.toUpperCase()}${set.direction.slice(1)} (\`${set.name}\`)`;
  const intro = comments.exported.get(set.name);
  return [title, ...(intro ? [intro] : []), table(['type', 'fields', 'meaning'], rows)].join('\n\n');
}

function sharedPayloads(comments: SourceComments, types: TypeWriter, names: Map<Schema, string>): string {
  const bySchema = new Map([...names].map(([schema, name]) => [name, schema as ObjectSchema]));
  const sections: string[] = [];
  // `used` grows while the tables are written (a payload's fields may use more payloads).
  for (let index = 0; index < types.used.length; index += 1) {
    const name = types.used[index] as string;
    const schema = bySchema.get(name) as ObjectSchema;
    const rows = Object.entries(schema.shape).map(([field, value]) => [
      `\`${fieldName(field, value)}\``,
      types.type(value),
      comments.keys.get(`${name}.${field}`) ?? '',
    ]);
    const intro = comments.exported.get(name);
    sections.push(
      [`### ${name}`, ...(intro ? [intro] : []), table(['field', 'type', 'meaning'], rows)].join('\n\n'),
    );
  }
  return sections.join('\n\n');
}

/** An `as const` table of numbers: one row per key, with the key's comment. */
function constantsTable(
  name: string,
  values: Readonly<Record<string, number>>,
  header: string[],
  row: (key: string, value: number) => string[],
  comments: SourceComments,
): string {
  return table(
    header,
    Object.entries(values).map(([key, value]) => [
      ...row(key, value),
      comments.keys.get(`${name}.${key}`) ?? '',
    ]),
  );
}

/** One row per race command: who sends it, what it carries, where it runs and how it gets there. */
function raceCommandsTable(): string {
  const rows = Object.entries(RACE_COMMANDS).map(([name, declared]) => {
    const fields = Object.keys(declared.payload.shape).map((field) => `\`${field}\``);
    const forward = declared.forward === 'call' ? 'waits for the answer' : 'not answered';
    return [
      `\`${name}\``,
      declared.sentBy,
      fields.length === 0 ? '—' : fields.join(', '),
      declared.runsOn,
      `\`${declared.call}\`, ${forward}`,
      declared.summary,
    ];
  });
  return table(['command', 'sent by', 'carries', 'runs on', 'from a follower', 'what it does'], rows);
}

/** The generated part of docs/protocol.md, between the markers (without them). */
export function protocolDoc(comments: SourceComments = readSourceComments()): string {
  const names = namedObjects();
  const types = new TypeWriter(names);
  const sockets = SOCKETS.map((socket) =>
    [
      `## ${socket.title}: \`${socket.url}\``,
      `Opened by ${socket.opener}`,
      ...socket.sets.map((set) => messageTable(set, comments, types)),
    ].join('\n\n'),
  );
  /** What a client says in `hello`, and what the server answers. */
  const versions = (who: string, [oldest, newest]: [number, number], minimum: string, after = '') =>
    [
      `${who} sends its protocol version in \`hello\`. This server speaks version ${newest}`,
      oldest === newest ? ' only' : ` and still accepts versions from ${oldest}`,
      `: it answers any other with \`incompatible\`, then closes with 4002${after}. `,
      comments.exported.get(minimum) ?? '',
    ].join('');
  return [
    ...sockets,
    '## Race commands',
    "Each declared once in `apps/server/src/modules/races/race-commands.ts`, which also makes the event socket's dispatch and a follower's forwarding (over the leader-calls channel) from the same table. An event socket command carries its message's fields and the member who sent it.",
    raceCommandsTable(),
    '## Shared payloads',
    sharedPayloads(comments, types, names),
    '## Car protocol versions',
    versions(
      'The car agent',
      [MIN_SUPPORTED_CAR_PROTOCOL_VERSION, CAR_PROTOCOL_VERSION],
      'MIN_SUPPORTED_CAR_PROTOCOL_VERSION',
    ),
    '## Browser protocol versions',
    versions(
      'The web app, on the control and event sockets,',
      [MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION, BROWSER_PROTOCOL_VERSION],
      'MIN_SUPPORTED_BROWSER_PROTOCOL_VERSION',
      ', and the page asks its user to reload it (the reload fetches the page the server serves, which speaks its protocol)',
    ),
    '## Close codes',
    comments.exported.get('SOCKET_CLOSE_CODES') ?? '',
    constantsTable(
      'SOCKET_CLOSE_CODES',
      SOCKET_CLOSE_CODES,
      ['code', 'name', 'meaning'],
      (key, code) => [String(code), `\`${key}\``],
      comments,
    ),
    '## Disconnect reasons',
    `${comments.exported.get('DISCONNECT_REASONS') ?? ''} One of: ${DISCONNECT_REASONS.map((reason) => `\`${reason}\``).join(', ')}.`,
    '## Limits',
    comments.exported.get('CONTROL_LIMITS') ?? '',
    constantsTable(
      'CONTROL_LIMITS',
      CONTROL_LIMITS,
      ['limit', 'value', 'meaning'],
      (key, value) => [`\`${key}\``, String(value)],
      comments,
    ),
  ].join('\n\n');
}

function blockBounds(document: string): { from: number; to: number } {
  const from = document.indexOf(PROTOCOL_START);
  const to = document.indexOf(PROTOCOL_END);
  if (from < 0 || to < from)
    throw new Error(`docs/protocol.md needs the markers ${PROTOCOL_START} and ${PROTOCOL_END}`);
  return { from: from + PROTOCOL_START.length, to };
}

/** The document with its generated part replaced. */
export function withProtocolDoc(document: string, generated: string): string {
  const { from, to } = blockBounds(document);
  return `${document.slice(0, from)}\n\n${generated}\n\n${document.slice(to)}`;
}

/**
 * The generated part as lines to compare, whatever Biome's formatting did to it: table cells
 * trimmed (Biome pads them), blank lines dropped.
 */
export function comparableLines(markdown: string): string[] {
  return markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) =>
      line.startsWith('|')
        ? line
            .slice(1, -1)
            .split(/(?<!\\)\|/)
            .map((part) => part.trim())
            .map((part) => (/^-+$/.test(part) ? '---' : part))
            .join(' | ')
        : line,
    );
}

/** The generated part as it stands in the document. */
export function protocolDocIn(document: string): string {
  const { from, to } = blockBounds(document);
  return document.slice(from, to);
}
