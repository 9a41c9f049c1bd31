// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Imports point down the data flow (STYLE.md): cli, mcp -> runtime, workflow -> ingest, artifacts,
 * contracts -> workspace, fence, events. Another folder is reached only through its index.ts.
 * Each entry lists the folders a layer must not import.
 */
const layers = {
  fence: ['workspace', 'events', 'ingest', 'artifacts', 'runtime', 'workflow', 'contracts', 'mcp', 'cli'],
  workspace: ['fence', 'events', 'ingest', 'artifacts', 'runtime', 'workflow', 'contracts', 'mcp', 'cli'],
  events: ['fence', 'workspace', 'ingest', 'artifacts', 'runtime', 'workflow', 'contracts', 'mcp', 'cli'],
  ingest: ['artifacts', 'runtime', 'workflow', 'contracts', 'mcp', 'cli'],
  artifacts: ['ingest', 'runtime', 'workflow', 'contracts', 'mcp', 'cli'],
  contracts: ['runtime', 'workflow', 'mcp', 'cli'],
  runtime: ['workflow', 'mcp', 'cli'],
  workflow: ['runtime', 'mcp', 'cli'],
  mcp: ['cli'],
  cli: ['mcp'],
};

const folders = Object.keys(layers);

const boundaryConfigs = Object.entries(layers).map(([layer, forbidden]) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map((folder) => ({
            group: [`../${folder}`, `../${folder}/**`, `../../${folder}`, `../../${folder}/**`],
            message: `src/${layer} must not import src/${folder}: imports point down the data flow (STYLE.md).`,
          })),
          {
            regex: `^\\.\\./(?:\\.\\./)?(?:${folders.join('|')})/(?!index\\.js$).+`,
            message: 'Reach another folder only through its index.js.',
          },
          { group: ['node:*', 'fs', 'path', 'os'], message: 'src/fence is pure: no node:* imports.' },
        ].filter((pattern) => layer === 'fence' || !('group' in pattern && pattern.group[0] === 'node:*')),
      },
    ],
  },
}));

export default defineConfig(
  { ignores: ['dist/**', 'dist-check/**', 'node_modules/**', 'coverage/**', 'demo/**', '.bench-tmp/**'] },
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
