import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { closestMatch } from '../config/index.js';
import {
  CONTRACT_DOC_URI_PREFIX,
  CONTRACT_TYPES,
  contractDocUri,
  isContractType,
  renderContractDoc,
} from '../contracts/index.js';
import type { ContractType } from '../contracts/index.js';

const MARKDOWN = 'text/markdown';
const MAX_TYPE_LENGTH = 64;

/**
 * Registers one resource per contract type, `artifact-ingest://contracts/<type>`, whose text is the type's format
 * doc (docs/contracts/<type>.md, rendered from the zod schema): the full format a refusal's summary points at,
 * readable by any MCP client without the package's files. The template `artifact-ingest://contracts/{type}`
 * answers any other type with the list of types. Nothing here reads the project, so a server started with a
 * startup problem serves them too.
 */
export function registerContractResources(server: McpServer): void {
  for (const type of CONTRACT_TYPES) {
    server.registerResource(
      type,
      contractDocUri(type),
      {
        title: `${type} artifact format`,
        description: `The fields, constraints, completion rule and an example of a ${type} artifact, for submit_artifact or a \`\`\`json artifact=${type} block.`,
        mimeType: MARKDOWN,
      },
      () => formatDoc(type),
    );
  }
  // Listed by resources/templates/list; read only for a URI that no resource above has (a misspelt type).
  server.registerResource(
    'contract',
    new ResourceTemplate(`${CONTRACT_DOC_URI_PREFIX}{type}`, { list: undefined }),
    {
      title: 'Contract artifact format',
      description: `The format doc of a contract type: one of ${CONTRACT_TYPES.join(', ')}.`,
      mimeType: MARKDOWN,
    },
    (uri, variables) => {
      const type = String(variables['type']);
      if (isContractType(type)) return formatDoc(type);
      // The edit distance costs length x length: a URI may be a megabyte long, a type name is under 64.
      const suggestion = type.length <= MAX_TYPE_LENGTH ? closestMatch(type, CONTRACT_TYPES) : undefined;
      throw new McpError(
        ErrorCode.InvalidParams,
        `${uri.href.slice(0, 200)} names no contract type; ${suggestion === undefined ? `read ${CONTRACT_DOC_URI_PREFIX}<type> with one of ${CONTRACT_TYPES.join(', ')}` : `did you mean ${CONTRACT_DOC_URI_PREFIX}${suggestion}?`}`,
      );
    },
  );
}

function formatDoc(type: ContractType): ReadResourceResult {
  return { contents: [{ uri: contractDocUri(type), mimeType: MARKDOWN, text: renderContractDoc(type) }] };
}
