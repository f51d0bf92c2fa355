import { useSyncExternalStore } from 'react';

/** A tiny router over the History API: every screen has an address under /console that can be bookmarked. */
export const BASE = '/console';

function snapshot(): string {
  return window.location.pathname + window.location.search;
}

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  return () => window.removeEventListener('popstate', listener);
}

export function navigate(to: string): void {
  window.history.pushState(null, '', BASE + to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export interface Route {
  /** the path under /console, e.g. `/people/8a3f…` */
  path: string;
  query: URLSearchParams;
}

export function useRoute(): Route {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: url.searchParams };
}

/** `/people/:id` against `/people/42` → { id: '42' }; null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}
