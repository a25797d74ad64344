/** Placeholder, filled below. */
export interface OperationExample {
  request?: unknown;
  response: unknown;
  otherResponses?: Record<string, unknown>;
}
export const operationExamples: Record<string, OperationExample> = {};
