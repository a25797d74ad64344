// Smallest possible workflow: proves a real Worker can bundle, poll and complete against the server.
export async function echo(message: string): Promise<string> {
  return message;
}
