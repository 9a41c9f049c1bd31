import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseIngestFlag, parseProjectConfig, projectConfigJsonSchema } from '../../src/config/index.js';
import { ID_PATTERN } from '../../src/project/index.js';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  required?: string[];
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  not?: Schema;
  description?: string;
}

const schema = projectConfigJsonSchema() as Schema;
const sections = schema.properties!;

/** The mapping branch of a section that may also be left empty. */
function mapping(section: Schema | undefined): Schema {
  const branch = section?.anyOf?.find((candidate) => candidate.type === 'object');
  expect(branch).toBeDefined();
  return branch!;
}

const agentKinds = (): Schema[] => (mapping(sections['agents']).additionalProperties as Schema).oneOf!;

describe('projectConfigJsonSchema', () => {
  it('docs/config.schema.json matches the config file schema (npm run fixtures:regen)', async () => {
    const published = JSON.parse(
      await readFile(new URL('../../docs/config.schema.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(published).toEqual(projectConfigJsonSchema());
  });

  it('has the seven sections, each described, and no other top-level key', () => {
    expect(Object.keys(sections)).toEqual([
      'ingest',
      'agents',
      'runtime',
      'workflow',
      'contracts',
      'remote',
      'git',
    ]);
    expect(schema.additionalProperties).toBe(false);
    for (const section of Object.values(sections)) expect(section.description).toMatch(/\w/);
  });

  it.each([
    ['ingest', ['enabled', 'fail_mode', 'durability', 'parser', 'limits']],
    ['runtime', ['concurrency', 'max_run_document_bytes']],
    ['workflow', []],
    ['contracts', []],
  ])('keeps %s strict, as the loader is: only %j', (name, keys) => {
    const section = mapping(sections[name]);
    expect(section.additionalProperties).toBe(false);
    expect(Object.keys(section.properties ?? {})).toEqual(keys);
    // A section written with nothing under it (`ingest:`) reads as null and is allowed.
    expect(sections[name]!.anyOf).toContainEqual({ type: 'null' });
  });

  it('keeps ingest.limits strict', () => {
    const limits = mapping(mapping(sections['ingest']).properties!['limits']);
    expect(limits.additionalProperties).toBe(false);
    expect(Object.keys(limits.properties!)).toEqual([
      'max_document_bytes',
      'max_block_bytes',
      'max_blocks',
      'max_total_bytes',
      'max_parse_ms',
    ]);
  });

  it('describes agents as a map from agent names to one of the three kinds', () => {
    const agents = mapping(sections['agents']);
    expect(agents.propertyNames).toEqual({ type: 'string', pattern: ID_PATTERN.source });
    expect(agentKinds().map((kind) => kind.properties!['kind']!.const)).toEqual([
      'replay',
      'command',
      'openai',
    ]);
    expect(agentKinds().map((kind) => kind.required)).toEqual([
      ['kind', 'dir'],
      ['kind', 'command'],
      ['kind', 'model'],
    ]);
    for (const kind of agentKinds()) expect(kind.additionalProperties).toBe(false);
  });

  it('never allows api_key, in any kind, and says to use api_key_env', () => {
    for (const kind of agentKinds()) {
      expect(kind.properties!['api_key']).toMatchObject({ not: {} });
      expect(kind.properties!['api_key']!.description).toContain('api_key_env');
    }
  });

  // Every value the loader accepts for ingest.enabled is allowed by the schema, and nothing else that YAML gives.
  it.each([
    [true, true],
    [false, true],
    [1, true],
    [0, true],
    ['on', true],
    ['OFF', true],
    [' True ', true],
    ['0', true],
    ['yes', false],
    ['', false],
    [2, false],
    [null, false],
  ])('ingest.enabled: %j is allowed by the schema: %s', (value, allowed) => {
    const enabled = mapping(sections['ingest']).properties!['enabled']!;
    expect(enabled.anyOf).toBeDefined();
    const matches = enabled.anyOf!.some((branch) => {
      switch (branch.type ?? 'any') {
        case 'boolean':
          return typeof value === 'boolean';
        case 'integer':
          return branch.enum!.includes(value);
        case 'string':
          return typeof value === 'string' && new RegExp(branch.pattern!).test(value);
        default:
          return false;
      }
    });
    expect(matches).toBe(allowed);
    if (typeof value === 'string') expect(parseIngestFlag(value) !== undefined).toBe(allowed);
  });

  it('keeps remote and remote.s3 as strict as the loader, with project, catalog and objects required', () => {
    const remote = mapping(sections['remote']);
    expect(remote.additionalProperties).toBe(false);
    expect(remote.required).toEqual(['project', 'catalog', 'objects']);
    expect(Object.keys(remote.properties!)).toEqual(['project', 'catalog', 'objects', 's3']);
    const s3 = mapping(remote.properties!['s3']);
    expect(s3.additionalProperties).toBe(false);
    expect(Object.keys(s3.properties!)).toEqual(['endpoint', 'region', 'force_path_style', 'checksums']);
    expect(s3.properties!['checksums']!.enum).toEqual(['when_required', 'when_supported']);
    for (const property of [...Object.values(remote.properties!), ...Object.values(s3.properties!)]) {
      expect(property.description).toMatch(/\w/);
    }
    expect(sections['remote']!.description).toContain('only from the environment');
  });

  // The schema's patterns agree with the loader on what each setting may be (the loader stays the judge).
  it.each([
    ['project', 'acme/web', true],
    ['project', '/acme', false],
    ['project', '.acme', false],
    ['project', 'acme web', false],
    ['catalog', 'postgres://lineage@db.internal:5432/lineage?sslmode=require', true],
    ['catalog', 'postgresql://db/l', true],
    ['catalog', 'postgres://u:secret@db/l', false],
    ['catalog', 'mysql://db/l', false],
    ['objects', 'catalog', true],
    ['objects', 's3://artifacts-bucket/artifact-ingest', true],
    ['objects', 's3://Bucket', false],
    ['objects', 'S3://bucket', true],
    ['objects', 'catalogue', false],
    ['endpoint', 'http://127.0.0.1:9000', true],
    ['endpoint', 'https://u:p@minio', false],
    ['endpoint', 'ftp://minio', false],
    ['region', 'us-east-1', true],
    ['region', 'us east', false],
  ])('remote %s: %j is allowed by the schema: %s', (key, value, allowed) => {
    const remote = mapping(sections['remote']);
    const s3 = mapping(remote.properties!['s3']);
    const property = (remote.properties![key] ?? s3.properties![key])!;
    expect(new RegExp(property.pattern!).test(value)).toBe(allowed);
    const required = ['project: acme/web', 'catalog: postgres://db/l', 'objects: catalog'];
    const lines = ['project', 'catalog', 'objects'].includes(key)
      ? [...required.filter((line) => !line.startsWith(`${key}:`)), `${key}: "${value}"`]
      : [...required, 's3:', `  ${key}: "${value}"`];
    const text = `remote:\n${lines.map((line) => `  ${line}\n`).join('')}`;
    const accepted = (() => {
      try {
        parseProjectConfig(text);
        return true;
      } catch {
        return false;
      }
    })();
    expect(accepted).toBe(allowed);
  });

  it('is named by docs/configuration.md with a path that the installed package ships', async () => {
    const read = (file: string): Promise<string> =>
      readFile(new URL(`../../${file}`, import.meta.url), 'utf8');
    const page = await read('docs/configuration.md');
    const line = '# yaml-language-server: $schema=./node_modules/artifact-ingest/docs/config.schema.json';
    expect(page).toContain(`\n${line}\n`);
    const { files } = JSON.parse(await read('package.json')) as { files: string[] };
    expect(files.some((entry) => 'docs/config.schema.json'.startsWith(`${entry}/`))).toBe(true);
    // The page's example file, schema line included, is one the loader accepts.
    const example = /```yaml\n(# yaml-language-server[^\n]*\ningest:[\s\S]*?)```/.exec(page)?.[1];
    expect(example).toBeDefined();
    expect(parseProjectConfig(example!).ingest.limits.maxBlocks).toBe(500);
  });
});
