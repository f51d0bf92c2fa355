/**
 * The gateway's public OpenAPI document once it is complete. The gateway merges the upstreams'
 * documents, each fetched with a timeout: an upstream too slow on a loaded machine is left out of
 * that answer, named in `info['x-unavailable-services']`, and asked again on the next request (an
 * incomplete merge is never cached). Asked up to ten times, half a second apart; a document still
 * incomplete after that fails the caller, naming the services it lacks.
 */
export async function completePublicDocument<T extends { info: Record<string, unknown> }>(gatewayUrl: string): Promise<T> {
  let missing: unknown;
  for (let attempt = 0; attempt < 10; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    const res = await fetch(`${gatewayUrl}/api/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
    const document = (await res.json()) as T;
    missing = document.info['x-unavailable-services'];
    if (missing === undefined) return document;
  }
  throw new Error(`the public OpenAPI document still lacks ${JSON.stringify(missing)} after ten tries`);
}
