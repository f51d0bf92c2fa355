import { useSyncExternalStore } from 'react';
import { api, ok, setAccessToken } from '../api/client';
import type { components } from '../api/schema';

type TokenPair = components['schemas']['TokenPairView'];
export type Me = components['schemas']['MeView'];

export interface Session {
  token: string;
  refreshToken: string;
  expiresAt: string;
  me: Me;
}

/**
 * The signed-in operator: kept in memory and in sessionStorage (this tab only, gone when it closes;
 * never localStorage), the access token refreshed a minute before it expires.
 */
const STORAGE_KEY = 'mm-console-session';
const listeners = new Set<() => void>();
let current: Session | undefined = restore();
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
/** Why the last session ended without the operator signing out, shown on the sign-in page. */
let endedBecause: string | undefined;

export function sessionEndedBecause(): string | undefined {
  return endedBecause;
}

function restore(): Session | undefined {
  try {
    const saved = sessionStorage.getItem(STORAGE_KEY);
    return saved ? (JSON.parse(saved) as Session) : undefined;
  } catch {
    return undefined;
  }
}

function publish(next: Session | undefined): void {
  current = next;
  if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(STORAGE_KEY);
  setAccessToken(next?.token, () => {
    endedBecause = 'The platform refused your session (expired, ended elsewhere or revoked): sign in again.';
    publish(undefined);
  });
  clearTimeout(refreshTimer);
  if (next) {
    // a minute before expiry; at once for a restored session whose token is (nearly) spent
    const wait = Math.max(0, Date.parse(next.expiresAt) - Date.now() - 60_000);
    refreshTimer = setTimeout(() => void refresh(), wait);
  }
  for (const listener of listeners) listener();
}

async function refresh(): Promise<void> {
  const session = current;
  if (!session) return;
  try {
    const pair = await ok(api.POST('/api/auth/refresh', { body: { refreshToken: session.refreshToken } }));
    publish({ ...session, token: pair.token, refreshToken: pair.refreshToken, expiresAt: pair.expiresAt });
  } catch {
    endedBecause = 'Your session could not be renewed: sign in again.';
    publish(undefined);
  }
}

/** Completes a sign-in: reads who the token belongs to (role, permissions) and keeps the session. */
export async function startSession(pair: TokenPair): Promise<void> {
  setAccessToken(pair.token);
  const me = await ok(api.GET('/api/orchestrator/me'));
  endedBecause = undefined;
  publish({ token: pair.token, refreshToken: pair.refreshToken, expiresAt: pair.expiresAt, me });
}

export async function signOut(): Promise<void> {
  try {
    if (current) await ok(api.POST('/api/auth/logout'));
  } finally {
    publish(undefined);
  }
}

/** Ends every session of the operator (other browsers and devices included), then this one. */
export async function signOutEverywhere(): Promise<void> {
  try {
    if (current) await ok(api.POST('/api/auth/logout-all'));
  } finally {
    publish(undefined);
  }
}

export function useSession(): Session | undefined {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

export function can(session: Session | undefined, permission: string): boolean {
  return Boolean(session?.me.permissions.includes(permission));
}

// A restored session: arm its token and refresh timer.
if (current) publish(current);
