import { describe, expect, it } from 'vitest';
import { pathReportFileName } from '../../src/cli/run/report-command.js';

describe('pathReportFileName', () => {
  it.each([
    ['workspace/src/server.js', 'path-workspace_src_server.js.report.html'],
    ['docs/my plan (v2).md', 'path-docs_my_plan__v2_.md.report.html'],
    ['.agent/x.json', 'path-_agent_x.json.report.html'],
  ])('names the page of %s as %s', (projectPath, name) => {
    expect(pathReportFileName(projectPath)).toBe(name);
  });

  it('keeps a long path within one file name: a hash of the whole path, then its end', () => {
    const deep = `workspace/${'folder/'.repeat(40)}server.js`;
    const name = pathReportFileName(deep);
    expect(name.length).toBe(200);
    expect(name).toMatch(/^path-[0-9a-f]{12}-.*_folder_server\.js\.report\.html$/);
    expect(pathReportFileName(deep.replace('workspace/', 'workspace/other/'))).not.toBe(name);
  });
});
