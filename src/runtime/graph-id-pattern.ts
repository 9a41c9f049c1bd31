/** Graph names, node ids and agent names: they become file names (replay replies, manifests), so no `/`. */
export const GRAPH_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
