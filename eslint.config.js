// @ts-check
import { existsSync } from 'node:fs';
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Imports point down the data flow (STYLE.md): a folder imports only folders of a lower tier, never one of
 * its own tier or above. Another folder, or a subfolder, is reached only through its index.ts.
 */
const tiers = [
  ['project'],
  ['config'],
  // The run's span tree, its live spans (through @opentelemetry/api) and its OTLP encoding: below every user.
  ['telemetry'],
  ['fence', 'workspace'],
  ['store'],
  ['remote'],
  ['events'],
  ['ingest', 'artifacts'],
  ['contracts'],
  ['runs'],
  ['fleet'],
  ['git'],
  ['runtime', 'workflow'],
  ['report'],
  ['mcp', 'cli'],
  // The SDK adapters (subpath exports `artifact-ingest/ai-sdk`, `artifact-ingest/langgraph`): nothing imports them.
  ['ai-sdk', 'langgraph'],
];
// fence is pure: markdown text in, blocks out; it reads no configuration either.
/** @type {Readonly<Record<string, readonly string[]>>} */
const alsoForbidden = { fence: ['config'] };

// Rules name only the folders that exist, so none stands for code that is not there yet.
const folders = tiers.flat().filter((folder) => existsSync(`src/${folder}`));
/** @param {string} folder */
const tierOf = (folder) => tiers.findIndex((tier) => tier.includes(folder));
/**
 * @param {string} layer
 * @param {readonly string[]} allowed
 */
const forbiddenFor = (layer, allowed = []) =>
  folders.filter(
    (folder) =>
      folder !== layer &&
      !allowed.includes(folder) &&
      (tierOf(folder) >= tierOf(layer) || (alsoForbidden[layer] ?? []).includes(folder)),
  );

// The one edge between the two adapters: the command `artifact-ingest mcp` starts the MCP server.
/** @type {readonly { file: string, layer: string, allows: readonly string[] }[]} */
const adapterBridges = existsSync('src/mcp')
  ? [{ file: 'src/cli/mcp-command.ts', layer: 'cli', allows: ['mcp'] }]
  : [];

/**
 * @param {string} layer
 * @param {readonly string[]} files
 * @param {readonly string[]} allowed
 */
const boundaryConfig = (layer, files, allowed = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbiddenFor(layer, allowed).map((folder) => ({
            regex: `^(?:\\.\\./)+${folder}(?:/|$)`,
            message: `src/${layer} must not import src/${folder}: imports point down the data flow (STYLE.md).`,
          })),
          {
            // Up and into another folder or subfolder, or down into a subfolder, ends at its index.js.
            regex: '^(?:(?:\\.\\./)+|\\./)[^./][^/]*/(?!index\\.js$).+',
            message: 'Reach another folder or subfolder only through its index.js.',
          },
          ...(layer === 'fence'
            ? [{ group: ['node:*', 'fs', 'path', 'os'], message: 'src/fence is pure: no node:* imports.' }]
            : []),
        ],
      },
    ],
  },
});

const boundaryConfigs = [
  ...folders.map((layer) => boundaryConfig(layer, [`src/${layer}/**/*.ts`])),
  // Later in the list, so for the bridge file its rule replaces the folder's.
  ...adapterBridges.map((bridge) => boundaryConfig(bridge.layer, [bridge.file], bridge.allows)),
];

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'dist-check/**',
      'node_modules/**',
      'coverage/**',
      'demo/**',
      '.bench-tmp/**',
      '.pack-test/**',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...boundaryConfigs,
  {
    files: ['test/**/*.ts', 'fixtures/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  prettier,
);
