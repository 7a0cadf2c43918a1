/**
 * An error whose message is meant for the model: it says what went wrong and what to do next. The dispatcher turns
 * it into a tool result with `isError: true`; other errors are reported the same way but prefixed as unexpected.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';

  static staleRef(ref: string): ToolError {
    return new ToolError(`ref ${ref} is no longer on the page — take a new snapshot and use a ref from it.`);
  }
}
