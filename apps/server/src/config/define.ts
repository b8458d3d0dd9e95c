/**
 * The declarative settings table. Each environment variable is stated once, with its schema, its
 * default (as the text an operator would write), its documentation and whether it is a secret;
 * the parsed type, the defaults and the README table are all derived from that one entry.
 */
import type { z } from 'zod';

/** What an empty variable means. `unset` by default: a blank line in an env file is not a value. */
export type EmptyMeaning = 'unset' | 'none' | 'value';

export interface Setting<T> {
  env: string;
  /** Parses the variable's text, or the default's (empty only as a default or with `empty: 'value'`). */
  schema: z.ZodType<T, string>;
  /** The text used when the variable is unset, parsed by `schema`; null: the value is null. */
  default: string | null;
  /** The README's default when it is not a fixed text (derived from another variable, generated). */
  defaultDoc?: string;
  empty: EmptyMeaning;
  /** Markdown for the README table. */
  doc: string;
  /** Never echoed: not in error messages, not in logs. */
  secret: boolean;
  /** Text where " #" is legitimate (a passphrase, a display name): not taken for a comment. */
  freeText: boolean;
}

interface SettingInput<T, D extends string | null, E extends EmptyMeaning> {
  env: string;
  schema: z.ZodType<T, string>;
  default: D;
  defaultDoc?: string;
  empty?: E;
  doc: string;
  secret?: boolean;
  freeText?: boolean;
}

/** One entry of the table; its value is null when unset without a default, or empty with `none`. */
export function setting<T, D extends string | null, E extends EmptyMeaning = 'unset'>(
  input: SettingInput<T, D, E>,
): Setting<T | (D extends null ? null : never) | (E extends 'none' ? null : never)> {
  return {
    ...input,
    empty: input.empty ?? 'unset',
    secret: input.secret ?? false,
    freeText: input.freeText ?? false,
  };
}

/** How the configuration is loaded. */
export interface LoadOptions {
  /**
   * Check only (`npm run config:check`): files are read but nothing is written — the generated
   * JWT secret is read if it exists, never created.
   */
  dryRun?: boolean;
}

/**
 * One module's settings plus the step that turns their values into the module's part of Config:
 * composite values and checks across variables (it throws a ConfigError naming the variables).
 * `earlier` is what the sections before it in the loader's list built (the core section first).
 */
export interface ConfigSection<Values, Out, Earlier = unknown> {
  settings: { [K in keyof Values]: Setting<Values[K]> };
  build(values: Values, earlier: Earlier, options: LoadOptions): Out;
}

export function defineSection<Values, Out = Values, Earlier = unknown>(
  settings: { [K in keyof Values]: Setting<Values[K]> },
  build?: (values: Values, earlier: Earlier, options: LoadOptions) => Out,
): ConfigSection<Values, Out, Earlier> {
  return { settings, build: build ?? ((values) => values as unknown as Out) };
}

// biome-ignore lint/suspicious/noExplicitAny: a list of sections of different shapes
export type AnySection = ConfigSection<any, unknown, any>;

/** The part of Config a section produces. */
export type SectionOutput<S> =
  S extends ConfigSection<infer _Values, infer Out, infer _Earlier> ? Out : never;

export class ConfigError extends Error {
  override name = 'ConfigError';

  readonly #problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.#problems = problems;
  }

  /** Each problem on its own (`npm run config:check` prints one a line); the message joins them. */
  get problems(): readonly string[] {
    return this.#problems;
  }
}

/** Every ConfigError message starts the same way, so an operator sees at once what failed. */
export function configError(problem: string | readonly string[]): ConfigError {
  const problems = typeof problem === 'string' ? [problem] : problem;
  return new ConfigError(`Invalid configuration: ${problems.join('; ')}`, problems);
}

export function settingsOf(sections: readonly AnySection[]): Setting<unknown>[] {
  return sections.flatMap((section) => Object.values(section.settings) as Setting<unknown>[]);
}

/** How an error message shows a value: quoted, or only its length for a secret. */
export function describeValue(entry: Setting<unknown>, raw: string): string {
  return entry.secret ? `a value of ${raw.length} characters` : JSON.stringify(raw);
}

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * A comment pasted after a value: " #…", or "# …" where the value was left empty. systemd's
 * EnvironmentFile= (like Docker's --env-file) takes a "#" for a comment only at the start of a
 * line, so the note becomes part of the value. Only a blank before "#" counts: URLs (`#fragment`),
 * tokens and a Twitch `#channel` keep their "#".
 */
const INLINE_COMMENT = /\s#|^#\s/;

/** The placeholder of deploy/telerace.env.example (and deploy/coturn/turnserver.conf). */
export const PLACEHOLDER = 'CHANGE_ME';

/** What no setting may hold, whatever its schema accepts; null when the text is fine. */
function pastedMistake(entry: Setting<unknown>, raw: string): string | null {
  if (raw.includes(PLACEHOLDER)) return `is still the example's placeholder ${PLACEHOLDER}: set a real value`;
  if (!entry.freeText && INLINE_COMMENT.test(raw))
    return 'holds a comment ("#" after a blank), which an environment file keeps in the value: put comments on lines of their own';
  return null;
}

/** One variable's value, or the one-line problem naming it. */
export function parseSetting(entry: Setting<unknown>, raw: string | undefined): Parsed {
  const isEmpty = raw === '';
  if (raw === undefined || (isEmpty && entry.empty === 'unset')) {
    if (entry.default === null) return { ok: true, value: null };
    const result = entry.schema.safeParse(entry.default);
    // A default the schema refuses is a bug in the table, not an operator's mistake.
    if (!result.success) throw new Error(`${entry.env}: the default ${entry.default} is invalid`);
    return { ok: true, value: result.data };
  }
  if (isEmpty && entry.empty === 'none') return { ok: true, value: null };
  const mistake = pastedMistake(entry, raw);
  if (mistake !== null)
    return { ok: false, problem: `${entry.env} ${mistake} (got ${describeValue(entry, raw)})` };
  const result = entry.schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  // The first problem is enough to fix the variable.
  const message = result.error.issues[0]?.message ?? 'is invalid';
  return { ok: false, problem: `${entry.env} ${message} (got ${describeValue(entry, raw)})` };
}

/**
 * Parses every section's variables, reporting every wrong one on a single line, then builds the
 * sections in order and merges their parts; a section whose checks across variables fail does not
 * stop the next ones, so every problem is reported at once.
 */
export function parseSections(
  sections: readonly AnySection[],
  env: Record<string, string | undefined>,
  options: LoadOptions = {},
): Record<string, unknown> {
  const problems: string[] = [];
  const valuesBySection = sections.map((section) => {
    const values: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(section.settings) as [string, Setting<unknown>][]) {
      const parsed = parseSetting(entry, env[entry.env]);
      if (parsed.ok) values[key] = parsed.value;
      else problems.push(parsed.problem);
    }
    return values;
  });
  if (problems.length > 0) throw configError(problems);
  const built: Record<string, unknown> = {};
  for (const [index, section] of sections.entries()) {
    try {
      Object.assign(built, section.build(valuesBySection[index], built, options));
    } catch (error) {
      if (error instanceof ConfigError) problems.push(...error.problems);
      // A section that needed what a failed one builds: the problems found say why.
      else if (problems.length > 0) break;
      else throw error;
    }
  }
  if (problems.length > 0) throw configError(problems);
  return built;
}
