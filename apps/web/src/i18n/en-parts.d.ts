/** en.json in two parts, split on LATER_SECTIONS by the plugin of split-texts.ts. */
declare module '*.json?first-page' {
  const texts: Record<string, unknown>;
  export default texts;
}
declare module '*.json?later' {
  const texts: Record<string, unknown>;
  export default texts;
}
