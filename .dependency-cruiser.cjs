/**
 * Import rules checked by `npm run lint` (docs/architecture.md "Module walls"). A module (a folder
 * under apps/server/src/modules/ or src/integrations/) keeps its queries to itself: another module
 * goes through its service, and what every module writes in its own transactions (the members'
 * rows, the audit log) lives in the shared kernel, src/kernel/. And no import cycle anywhere,
 * type-only imports included.
 */
const MODULE = '^apps/server/src/(modules|integrations)/([^/]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'An import cycle ties its files into one unit: move what both sides need into a file of its own.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'module-walls',
      comment:
        "A module imports only its own repos and the kernel's: reach another module through its service (a port in your deps), or move what is truly shared to src/kernel/.",
      severity: 'error',
      from: { path: MODULE },
      to: { path: '[.]repo[.]ts$', pathNot: '^apps/server/src/($1/$2|kernel)/' },
    },
    {
      name: 'module-walls-outside',
      comment:
        "Code outside the modules (http/, sockets/, scale-out/, test/, the kernel, scripts) reads no module's repo: use its service or the kernel.",
      severity: 'error',
      from: { pathNot: MODULE },
      to: { path: `${MODULE}.+[.]repo[.]ts$` },
    },
  ],
  options: {
    // Type-only imports count: they tie files together as much as any other.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
  },
};
