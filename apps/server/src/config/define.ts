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
}

interface SettingInput<T, D extends string | null, E extends EmptyMeaning> {
  env: string;
  schema: z.ZodType<T, string>;
  default: D;
  defaultDoc?: string;
  empty?: E;
  doc: string;
  secret?: boolean;
}

/** One entry of the table; its value is null when unset without a default, or empty with `none`. */
export function setting<T, D extends string | null, E extends EmptyMeaning = 'unset'>(
  input: SettingInput<T, D, E>,
): Setting<T | (D extends null ? null : never) | (E extends 'none' ? null : never)> {
  return { ...input, empty: input.empty ?? 'unset', secret: input.secret ?? false };
}

/**
 * One module's settings plus the step that turns their values into the module's part of Config:
 * composite values and checks across variables (it throws a ConfigError naming the variables).
 * `earlier` is what the sections before it in the loader's list built (the core section first).
 */
export interface ConfigSection<Values, Out, Earlier = unknown> {
  settings: { [K in keyof Values]: Setting<Values[K]> };
  build(values: Values, earlier: Earlier): Out;
}

export function defineSection<Values, Out = Values, Earlier = unknown>(
  settings: { [K in keyof Values]: Setting<Values[K]> },
  build?: (values: Values, earlier: Earlier) => Out,
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
}

/** Every ConfigError message starts the same way, so an operator sees at once what failed. */
export function configError(problem: string): ConfigError {
  return new ConfigError(`Invalid configuration: ${problem}`);
}

export function settingsOf(sections: readonly AnySection[]): Setting<unknown>[] {
  return sections.flatMap((section) => Object.values(section.settings) as Setting<unknown>[]);
}

/** How an error message shows a value: quoted, or only its length for a secret. */
export function describeValue(entry: Setting<unknown>, raw: string): string {
  return entry.secret ? `a value of ${raw.length} characters` : JSON.stringify(raw);
}

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

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
  const result = entry.schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  // The first problem is enough to fix the variable.
  const message = result.error.issues[0]?.message ?? 'is invalid';
  return { ok: false, problem: `${entry.env} ${message} (got ${describeValue(entry, raw)})` };
}

/**
 * Parses every section's variables, reporting every wrong one on a single line, then builds the
 * sections in order and merges their parts.
 */
export function parseSections(
  sections: readonly AnySection[],
  env: Record<string, string | undefined>,
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
  if (problems.length > 0) throw configError(problems.join('; '));
  return sections.reduce<Record<string, unknown>>(
    (built, section, index) => Object.assign(built, section.build(valuesBySection[index], built)),
    {},
  );
}
