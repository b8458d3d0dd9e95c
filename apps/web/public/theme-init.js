// Applies the saved theme before the first paint (an external file: the CSP forbids inline scripts).
// Mirrors src/features/theme/theme.ts: key "theme", values "dark" | "light", dark by default.
(() => {
  let theme = 'dark';
  try {
    if (window.localStorage.getItem('theme') === 'light') theme = 'light';
  } catch {
    // Storage can be blocked (privacy mode); the default theme applies.
  }
  document.documentElement.classList.toggle('dark', theme === 'dark');
})();
