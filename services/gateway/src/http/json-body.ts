/** A request's JSON body, checked against its schema; anything else is a 400 saying what to send. */
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from './api-error.ts';

export async function jsonBody<T>(c: Context, schema: z.ZodType<T>, example: string): Promise<T> {
  const raw: unknown = await c.req.json().catch(() => undefined);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problem = raw === undefined ? 'the body must be JSON' : parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  throw new ApiError(400, 'bad_request', `${problem} (send ${example})`);
}
