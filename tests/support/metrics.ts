/** Reads the gateway's Prometheus text (GET /metrics, an operator key). */

/** The action replies a gateway settled by each path: straight from a worker, or through Redis. */
export async function actionReplies(gateway: string | URL, operatorKey: string): Promise<{ direct: number; redis: number }> {
  const response = await fetch(new URL('/metrics', gateway), { headers: { authorization: `Bearer ${operatorKey}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  const count = (path: string) => Number(new RegExp(`^deskgate_gateway_action_replies_total\\{path="${path}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { direct: count('direct'), redis: count('redis') };
}
