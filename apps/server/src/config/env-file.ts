/**
 * Environment files read as systemd's `EnvironmentFile=` reads them (systemd 252, Debian 12's:
 * `parse_env_file_internal` in src/basic/env-file.c, followed state for state), so that
 * `npm run config:check` sees exactly the values the unit hands the server. Not a shell, not
 * dotenv: `#` or `;` starts a comment only at the start of a line, so `KEY=value  # note` gives
 * KEY the value `value  # note`. Quotes ('…' and "…") may enclose any part of a value and are
 * removed; whitespace around the key and before the value, and trailing unquoted whitespace, is
 * dropped; `\` escapes the next character, and a `\` at the end of a line joins the next one.
 *
 * The notes say what systemd does silently: a name it drops, a line without `=`, a name given
 * twice, and a comment ending in `\` (systemd before 254 — Debian 12's 252 — also comments out the
 * next line; later ones do not).
 */

export interface EnvFileNote {
  /** 1-based line of the file. */
  line: number;
  message: string;
}

export interface EnvFile {
  /** What the process gets, in the order first set. */
  values: Record<string, string>;
  notes: EnvFileNote[];
}

const WHITESPACE = ' \t\n\r';
const NEWLINE = '\n\r';
const COMMENTS = '#;';
/** Inside "…", a `\` before one of these is removed; before anything else it stays. */
const SHELL_NEED_ESCAPE = '"\\`$';

/** systemd's `env_name_is_valid`: letters, digits and `_`, not starting with a digit. */
const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type State =
  | 'preKey'
  | 'key'
  | 'preValue'
  | 'value'
  | 'valueEscape'
  | 'singleQuote'
  | 'doubleQuote'
  | 'doubleQuoteEscape'
  | 'comment'
  | 'commentEscape';

const VALUE_STATES: readonly State[] = [
  'preValue',
  'value',
  'valueEscape',
  'singleQuote',
  'doubleQuote',
  'doubleQuoteEscape',
];

export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  const notes: EnvFileNote[] = [];
  let state: State = 'preKey';
  let key = '';
  let value = '';
  /** Where trailing whitespace starts in `key`/`value`, or -1 (systemd's SIZE_MAX). */
  let keyWhitespace = -1;
  let valueWhitespace = -1;
  let line = 1;
  let keyLine = 1;
  let commentLine = 1;

  const push = () => {
    const name = keyWhitespace === -1 ? key : key.slice(0, keyWhitespace);
    if (!VALID_NAME.test(name)) {
      notes.push({
        line: keyLine,
        message: `${JSON.stringify(name)} is not a valid variable name: systemd drops it`,
      });
    } else {
      if (name in values) notes.push({ line: keyLine, message: `${name} is set again: the last one counts` });
      values[name] = value;
    }
    key = '';
    value = '';
  };

  for (const c of text) {
    switch (state) {
      case 'preKey':
        if (COMMENTS.includes(c)) {
          state = 'comment';
          commentLine = line;
        } else if (!WHITESPACE.includes(c)) {
          state = 'key';
          keyLine = line;
          keyWhitespace = -1;
          key = c;
        }
        break;
      case 'key':
        if (NEWLINE.includes(c)) {
          state = 'preKey';
          notes.push({ line: keyLine, message: 'no "=" on this line: systemd ignores it' });
          key = '';
        } else if (c === '=') {
          state = 'preValue';
          valueWhitespace = -1;
        } else {
          if (!WHITESPACE.includes(c)) keyWhitespace = -1;
          else if (keyWhitespace === -1) keyWhitespace = key.length;
          key += c;
        }
        break;
      case 'preValue':
        if (NEWLINE.includes(c)) {
          state = 'preKey';
          push();
        } else if (c === "'") state = 'singleQuote';
        else if (c === '"') state = 'doubleQuote';
        else if (c === '\\') state = 'valueEscape';
        else if (!WHITESPACE.includes(c)) {
          state = 'value';
          value += c;
        }
        break;
      case 'value':
        if (NEWLINE.includes(c)) {
          state = 'preKey';
          if (valueWhitespace !== -1) value = value.slice(0, valueWhitespace);
          push();
        } else if (c === '\\') {
          state = 'valueEscape';
          valueWhitespace = -1;
        } else {
          if (!WHITESPACE.includes(c)) valueWhitespace = -1;
          else if (valueWhitespace === -1) valueWhitespace = value.length;
          value += c;
        }
        break;
      case 'valueEscape':
        state = 'value';
        // An escaped newline joins the lines.
        if (!NEWLINE.includes(c)) value += c;
        break;
      case 'singleQuote':
        if (c === "'") state = 'preValue';
        else value += c;
        break;
      case 'doubleQuote':
        if (c === '"') state = 'preValue';
        else if (c === '\\') state = 'doubleQuoteEscape';
        else value += c;
        break;
      case 'doubleQuoteEscape':
        state = 'doubleQuote';
        if (SHELL_NEED_ESCAPE.includes(c)) value += c;
        else if (c !== '\n') value += `\\${c}`;
        break;
      case 'comment':
        if (c === '\\') state = 'commentEscape';
        else if (NEWLINE.includes(c)) state = 'preKey';
        break;
      case 'commentEscape':
        // systemd 252: whatever follows, even a newline, stays in the comment.
        if (NEWLINE.includes(c))
          notes.push({
            line: commentLine,
            message:
              'a comment ending in "\\" also comments out the next line in systemd before 254 (Debian 12), not in later ones: end it with another character',
          });
        state = 'comment';
        break;
    }
    if (c === '\n') line++;
  }

  if (VALUE_STATES.includes(state)) {
    if (state === 'value' && valueWhitespace !== -1) value = value.slice(0, valueWhitespace);
    push();
  } else if (state === 'key') {
    notes.push({ line: keyLine, message: 'no "=" on this line: systemd ignores it' });
  }
  return { values, notes };
}

/**
 * The file's bytes as text: throws on bytes that are not UTF-8, which systemd refuses (the unit
 * does not start). A byte-order mark is kept, as systemd keeps it (in the first name).
 */
export function decodeEnvFile(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
}
