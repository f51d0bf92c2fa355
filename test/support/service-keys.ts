import FindMyWay from 'find-my-way';
import type { ServiceName } from '@mm/contracts';
import { type CallerName, type InternalCallerTable, SERVICE_CALLERS, type ServiceKeys, generateServiceKeys } from '@mm/platform';
import { AUTH_INTERNAL_CALLERS } from '../../apps/auth/src/internal-callers';
import { LEDGER_INTERNAL_CALLERS } from '../../apps/ledger-wallets/src/internal-callers';
import { ORCHESTRATOR_INTERNAL_CALLERS } from '../../apps/orchestrator/src/internal-callers';
import { PARTNERS_INTERNAL_CALLERS } from '../../apps/partners/src/internal-callers';
import { DISPATCHER_INTERNAL_CALLERS } from '../../apps/webhook-dispatcher/src/internal-callers';

/**
 * One credential per caller (each service and `ops`), generated per test file (never a committed
 * secret). Every service booted with `serviceEnv` presents its own and recognises its callers' by
 * digest, so a test calling an internal route presents the key of a caller the route's table allows:
 * `callerKey('orchestrator')`, or `allowedCallerKey(service, method, path)` in a harness.
 */
export const TEST_SERVICE_KEYS: ServiceKeys = generateServiceKeys();

/** The X-Service-Key of one caller for this test file. */
export function callerKey(caller: CallerName): string {
  return TEST_SERVICE_KEYS[caller];
}

/** Each service's internal route table, as its root module registers it. */
export const INTERNAL_CALLER_TABLES: Readonly<Record<ServiceName, InternalCallerTable>> = {
  orchestrator: ORCHESTRATOR_INTERNAL_CALLERS,
  auth: AUTH_INTERNAL_CALLERS,
  partners: PARTNERS_INTERNAL_CALLERS,
  'ledger-wallets': LEDGER_INTERNAL_CALLERS,
  'webhook-dispatcher': DISPATCHER_INTERNAL_CALLERS,
};

type Router = FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
const routers = new Map<ServiceName, Router>();

function routerOf(service: ServiceName): Router {
  let router = routers.get(service);
  if (!router) {
    router = FindMyWay({ ignoreTrailingSlash: false });
    for (const [route, callers] of Object.entries(INTERNAL_CALLER_TABLES[service])) {
      const [method, pattern] = route.split(' ');
      router.on(method as FindMyWay.HTTPMethod, pattern, () => undefined, { callers });
    }
    routers.set(service, router);
  }
  return router;
}

/**
 * The first caller the service's table allows on a concrete request (`GET`, `/v1/internal/wallets/<id>?x=1`):
 * what a test harness presents when the test is about the route, not about who calls it. A path the
 * table does not know (a test of an unknown route's 404) gets the service's first recognised caller.
 */
export function allowedCaller(service: ServiceName, method: string, path: string): CallerName {
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const found = routerOf(service).find(verb as FindMyWay.HTTPMethod, path.split('?')[0]);
  const callers = (found?.store as { callers?: readonly CallerName[] } | undefined)?.callers;
  return callers?.[0] ?? SERVICE_CALLERS[service][0];
}

export function allowedCallerKey(service: ServiceName, method: string, path: string): string {
  return callerKey(allowedCaller(service, method, path));
}
