// A run's tool access (the library's `toolAccess`), as the filters apply it and the saved state keeps it.

/** A run's tool access (the library's `toolAccess`): tool names or `mcp__server__*` patterns; `deny` wins. */
export interface ToolAccess {
  /** Only these tools (when given). */
  allow?: readonly string[];
  /** Never these tools. */
  deny?: readonly string[];
}
