/**
 * The gateway's public OpenAPI document once it is complete. The gateway merges the upstreams'
 * documents, each fetched with a timeout: an upstream too slow on a loaded machine is left out of
 * that answer, named in `info['x-unavailable-services']`, and asked again on the next request (an
 * incomplete merge is never cached). Asked up to ten times; the last answer is returned either way,
 * so a test that expects a complete document still fails when it never becomes complete.
 */
export async function completePublicDocument<T extends { info: Record<string, unknown> }>(gatewayUrl: string): Promise<T> {
  let document: T | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    const res = await fetch(`${gatewayUrl}/api/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
    document = (await res.json()) as T;
    if (document.info['x-unavailable-services'] === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return document!;
}
