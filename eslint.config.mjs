// ESLint, run by `npm run lint` (part of `npm test`). Prettier owns the layout: no formatting rule is on here.
import js from "@eslint/js"
import effect from "@effect/eslint-plugin"
import { defineConfig } from "eslint/config"
import globals from "globals"
import tseslint from "typescript-eslint"

export default defineConfig(
  {
    ignores: ["**/node_modules/", "**/dist/", "**/build/", "data/", "bench/results/", "drivers/", "coverage/"]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { "@effect": effect },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Formatting is Prettier's (test/format.test.ts), not dprint's.
      "@effect/dprint": "off",
      // The conventions import named modules from the barrels (`import { Effect } from "effect"`); the
      // bundles tree-shake them.
      "@effect/no-import-from-barrel-package": "off",
      // A value of a type nobody knows yet is `unknown`, narrowed where it is read.
      "@typescript-eslint/no-explicit-any": "error",
      // tsc holds unused names (noUnusedLocals, noUnusedParameters) with its `_` rules; see the JS block.
      "@typescript-eslint/no-unused-vars": "off",
      // `Effect.gen(function* () { ... })` without a yield is still a well-formed Effect.
      "require-yield": "off",
      // A generator passed to Effect.gen does not see the method's `this`, so `const self = this` is the idiom.
      "@typescript-eslint/no-this-alias": "off",
      // Prettier without semicolons puts a computed call on its own line (`sharp(...)\n[format]()`).
      "no-unexpected-multiline": "off",
      // The only control characters in patterns are the ANSI escapes (\x1b) that the CLI's help strips.
      "no-control-regex": "off",
      // The conventions' `import type` for types: under verbatimModuleSyntax a value import used only as a
      // type still loads its module at run time.
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-import-type-side-effects": "error"
    }
  },
  {
    // Type-aware rules on the packages' sources only: over the tests, the benchmark and the examples too
    // they would more than double the lint's time (docs/development.md).
    files: ["packages/*/src/**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/require-await": "error",
      "@typescript-eslint/return-await": ["error", "in-try-catch"],
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/consistent-type-exports": "error"
    }
  },
  {
    // A variable-length IN list goes through adapter-sql's `inList`, which pads it to a power of two so that
    // a statement takes a few texts, not one per length (prepared statements and statement caches).
    files: ["packages/adapter-{sql,sqlite,pg}/src/**/*.ts"],
    ignores: ["packages/adapter-sql/src/internal/inList.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name='in']",
          message: "Write an IN list as `IN ${inList(sql, values)}` (adapter-sql/src/internal/inList.ts)."
        }
      ]
    }
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: globals.node },
    rules: { "@typescript-eslint/no-unused-vars": "error" }
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  }
)
