import { parseFences, readArtifactAttribute } from '../../fence/index.js';

/** One ```` ```json artifact=<type> ```` block of a document. */
export interface ContractBlock {
  /** The type its info string names (not yet checked against the known types). */
  readonly type: string;
  /** The block's content: the JSON text. */
  readonly json: string;
  /** False when the document or its container ended before the closing fence (a cut-off answer). */
  readonly closed: boolean;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** The contract blocks of a markdown document, in document order, found by the same CommonMark fence parser. */
export function readContractBlocks(
  text: string,
  options: { readonly timeLimitMs?: number } = {},
): ContractBlock[] {
  // Cheap: no "artifact=" anywhere means no contract block, and no parse at all.
  if (!text.includes('artifact=')) return [];
  const scan = parseFences(
    text,
    options.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs },
  );
  const blocks: ContractBlock[] = [];
  for (const block of scan.blocks) {
    const type = readArtifactAttribute(block.info);
    if (type === undefined || block.fenceChar !== '`') continue;
    blocks.push({ type, json: block.content, closed: block.closed, line: block.startLine });
  }
  return blocks;
}
