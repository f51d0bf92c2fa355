import type { ComponentType } from 'react';

export interface ScreenProps {
  /** the path parameters (`/people/:id` → { id }) */
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface Screen {
  /** address under /console; `:name` is a parameter */
  path: string;
  /** title and navigation label */
  label: string;
  /** shown to (and reachable by) users holding this permission (from GET /api/orchestrator/me) */
  permission: string;
  /** listed in the navigation (detail screens are reached from a list) */
  nav: boolean;
  component: ComponentType<ScreenProps>;
}
