const MIB = 1024 * 1024;

/**
 * The most bytes of one message (one line) the stdio transport reads: a longer line is discarded as it streams
 * and answered with an error. Room for the largest output the product takes (16 MiB, `max_document_bytes`) even
 * when every byte of it becomes a 6-byte `\u0000` escape in JSON (96 MiB), plus the rest of the message.
 */
export const MAX_MESSAGE_BYTES = 128 * MIB;

/**
 * The most levels of nested objects and arrays in one message, the message's own object being the first:
 * deeper JSON is refused before it is parsed, so no parser, schema or tool ever recurses through it.
 */
export const MAX_MESSAGE_DEPTH = 64;

/**
 * The most bytes of one tool result (its structured content and the same JSON as text): long lists and texts are
 * shortened to fit, with a count of what was left out. Well under the 10 MiB the TypeScript SDK's client reads
 * in one message (`STDIO_DEFAULT_MAX_BUFFER_SIZE`).
 */
export const MAX_REPLY_BYTES = 4 * MIB;

/** The most items a list in a tool result keeps (`left_out` counts the rest). */
export const MAX_REPLY_ITEMS = 1000;

/**
 * The most bytes of replies the server lets wait for a client that does not read its stdout; past this it stops
 * reading stdin until the client has caught up.
 */
export const MAX_PENDING_OUTPUT_BYTES = 16 * MIB;

/**
 * The most bytes of any one message the server writes: a reply over it (bounded tool results never come near)
 * is replaced by a -32603 error for its request, so no client is sent a line it cannot read.
 */
export const MAX_SENT_BYTES = 2 * MAX_REPLY_BYTES;

/**
 * The most requests the server works on at once: past it, it stops reading stdin until one is answered, so a
 * flood of small requests (each of which may cost a state read and a 4 MiB reply) cannot multiply its memory.
 */
export const MAX_REQUESTS_IN_FLIGHT = 16;
