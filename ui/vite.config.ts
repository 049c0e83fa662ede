import { defineConfig, type Plugin } from 'vitest/config';

/**
 * The app runs with Tauri's `freezePrototype: true` (Object.prototype frozen). Preact copies
 * vnodes with a `for…in` assignment loop, and a vnode carries an own `constructor` key: on a
 * plain object whose prototype is frozen, assigning `constructor` throws ("Cannot assign to
 * read only property"). This rewrites Preact's tiny `assign` helpers to define the properties
 * instead, which works either way.
 */
function preactUnderFrozenPrototype(): Plugin {
  const ASSIGN = /function (\w+)\((\w+),(\w+)\)\{for\(var (\w+) in \3\)\2\[\4\]=\3\[\4\];return \2\}/g;
  return {
    name: 'preact-under-frozen-prototype',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]preact[\\/].*dist[\\/].*\.m?js$/.test(id) || !ASSIGN.test(code)) return null;
      ASSIGN.lastIndex = 0;
      return code.replace(ASSIGN, (_all, name, target, source, key) =>
        `function ${name}(${target},${source}){for(var ${key} in ${source})Object.defineProperty(${target},${key},{value:${source}[${key}],writable:!0,enumerable:!0,configurable:!0});return ${target}}`);
    },
  };
}

export default defineConfig({
  plugins: [preactUnderFrozenPrototype()],
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2021',
    // No inline module-preload polyfill: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  test: {
    include: ['tests/unit/**/*.test.ts'],
  },
});
