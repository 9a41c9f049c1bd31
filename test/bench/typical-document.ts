/** A typical agent document of about `targetBytes`: prose, lists, a quote, a `ts file=` block and a bash block per step. */
export function typicalDocument(targetBytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let n = 1; length < targetBytes; n++) {
    const fence = '```';
    const part =
      `## Step ${n}: implement module ${n}\n\nThe *planner* asked for [a module](https://example.com/${n}) with \`init()\` and **tests**.\n` +
      `It must handle errors & retries; see the notes below.\n\n- item one\n- item two with \`code\`\n\n` +
      `${fence}ts file=src/module${n}.ts\n` +
      `export function init${n}(options: { retries: number } = { retries: 3 }): number {\n` +
      `  let total = 0;\n  for (let i = 0; i < options.retries; i++) {\n    total += i * ${n};\n  }\n  return total;\n}\n` +
      `${fence}\n\nRun it:\n\n${fence}bash\nnpm test -- --grep "module ${n}"\n${fence}\n\n` +
      `> Note: a reviewer will check module ${n} & its tests.\n\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}
