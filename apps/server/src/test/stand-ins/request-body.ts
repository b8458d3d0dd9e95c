/** Test support: the body of a request a stand-in server received, as text or as JSON. */
import type { IncomingMessage } from 'node:http';

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON object of the body; `{}` for an empty one. */
export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(request);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
