import { describe, expect, it } from 'vitest';
import {
  checkOutputPathTemplate,
  resolveOutputPath,
  type OutputPathCode,
} from '../../../src/runtime/graph/resolve-output-path.js';

describe('resolveOutputPath', () => {
  it.each([
    ['docs/single_r1.md', 'docs/single_r1.md'],
    ['docs/tasks/api.md', 'docs/tasks/api.md'],
    ['audits/security.md', 'audits/security.md'],
    ['docs/audits/security.md', 'docs/audits/security.md'],
    ['./docs/a.md', 'docs/a.md'],
    ['docs//a.md', 'docs/a.md'],
    ['docs/./x/a.md', 'docs/x/a.md'],
    ['docs/.hidden.md', 'docs/.hidden.md'],
    ['docs/Ünïcode ok.md', 'docs/Ünïcode ok.md'],
  ])('accepts %j as %j', (rendered, expected) => {
    expect(resolveOutputPath(rendered)).toEqual({ ok: true, path: expected });
  });

  it.each<[string, OutputPathCode, string]>([
    ['', 'empty_path', 'names no file'],
    ['docs/', 'empty_path', 'names no file'],
    ['docs/.', 'empty_path', 'names no file'],
    ['/docs/a.md', 'absolute_path', 'is absolute'],
    ['C:/docs/a.md', 'drive_letter', 'is absolute'],
    ['//server/docs/a.md', 'unc_path', 'is absolute'],
    ['docs\\a.md', 'backslash', 'separate folders with "/"'],
    ['docs/a:b.md', 'colon', 'contains ":"'],
    ['docs/../a.md', 'traversal', 'contains a ".." segment'],
    ['docs/x/../a.md', 'traversal', 'contains a ".." segment'],
    ['../docs/a.md', 'traversal', 'contains a ".." segment'],
    ['docs/a\nb.md', 'control_char', 'control character'],
    ['docs/CON.md', 'reserved_name', 'Windows reserves'],
    ['docs/a.md.', 'reserved_name', 'Windows reserves'],
    ['docs/a?.md', 'reserved_name', 'Windows reserves'],
    ['docs/a\u200b.md', 'invalid_unicode', 'Unicode'],
    ['docs\uff0fa.md', 'invalid_unicode', 'Unicode'],
    [`docs/${'a'.repeat(256)}.md`, 'too_long', 'too long'],
    ['docs/.git/a.md', 'git_dir', '.git'],
    ['a.md', 'outside_output_dirs', 'is not under docs/ or audits/'],
    ['workspace/a.md', 'outside_output_dirs', 'is not under docs/ or audits/'],
    ['.agent/runs/x/state.json', 'outside_output_dirs', 'is not under docs/ or audits/'],
    ['Docs/a.md', 'outside_output_dirs', 'is not under docs/ or audits/'],
    ['docsx/a.md', 'outside_output_dirs', 'is not under docs/ or audits/'],
    ['docs', 'outside_output_dirs', 'names the docs/ folder itself'],
    ['./audits', 'outside_output_dirs', 'names the audits/ folder itself'],
  ])('refuses %j with %s', (rendered, code, message) => {
    const result = resolveOutputPath(rendered);
    expect(result).toMatchObject({ ok: false, code });
    expect(result.ok ? '' : result.message).toContain(message);
  });

  it('quotes the path in its message, shortened when long', () => {
    const result = resolveOutputPath(`x/${'a/'.repeat(100)}b.md`);
    expect(result.ok ? '' : result.message).toMatch(
      /^output_path "x\/(a\/){59}…" is not under docs\/ or audits\//,
    );
  });
});

describe('checkOutputPathTemplate', () => {
  it.each([
    ['docs/single_{run_id}.md', 'docs/single_v.md'],
    ['docs/{goal}/{run_id}.md', 'docs/v/v.md'],
    ['audits/{run_id}_security.md', 'audits/v_security.md'],
    ['docs/TODO.md', 'docs/TODO.md'],
    ['docs/{{literal}}.md', 'docs/{literal}.md'],
  ])('accepts %j, whose written parts follow the rules', (template, checked) => {
    expect(checkOutputPathTemplate(template)).toEqual({ ok: true, path: checked });
  });

  it.each<[string, OutputPathCode]>([
    ['/docs/{run_id}.md', 'absolute_path'],
    ['docs/../{run_id}.md', 'traversal'],
    ['{goal}/a.md', 'outside_output_dirs'],
    ['{goal}', 'outside_output_dirs'],
    ['out/{run_id}.md', 'outside_output_dirs'],
    ['docs/{run_id}/', 'empty_path'],
    ['docs/{run_id}.', 'reserved_name'],
    ['docs/{run_id}:x.md', 'colon'],
    ['docs/{plan.output}.md', 'node_output_in_path'],
  ])('refuses %j at load time with %s', (template, code) => {
    const result = checkOutputPathTemplate(template);
    expect(result).toMatchObject({ ok: false, code });
    // The message shows the template as written, never the placeholder.
    expect(result.ok ? '' : result.message).toContain(JSON.stringify(template));
  });

  it('leaves to run time what only a value can break', () => {
    const template = 'docs/{name}.md';
    expect(checkOutputPathTemplate(template).ok).toBe(true);
    expect(resolveOutputPath(template.replace('{name}', '../../etc/passwd'))).toMatchObject({
      ok: false,
      code: 'traversal',
    });
  });
});

describe('output paths that hold a secret', () => {
  const token = 'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR';

  it('fails a rendered path with secret_in_path and shows the path redacted', () => {
    const result = resolveOutputPath(`docs/${token}.md`);
    expect(result).toMatchObject({ ok: false, code: 'secret_in_path' });
    expect(result.ok ? '' : result.message).toContain(
      '"docs/[REDACTED].md" holds what looks like a credential',
    );
    expect(result.ok ? '' : result.message).not.toContain(token);
  });

  it('refuses a template whose written part holds a secret', () => {
    expect(checkOutputPathTemplate(`docs/{name}_${token}.md`)).toMatchObject({ code: 'secret_in_path' });
  });
});
