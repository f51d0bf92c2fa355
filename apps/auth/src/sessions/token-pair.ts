/** The answer of login and refresh (docs/mobile-api.md "Log in": `token`, `refreshToken`). */
export interface TokenPair {
  token: string;
  refreshToken: string;
  tokenType: 'Bearer';
  /** seconds until the access token expires */
  expiresIn: number;
  expiresAt: string;
}

/** The pair for an access token expiring at `expiresAt` (seconds left counted now, never negative). */
export function tokenPair(token: string, refreshToken: string, expiresAt: Date): TokenPair {
  return {
    token,
    refreshToken,
    tokenType: 'Bearer',
    expiresIn: Math.max(0, Math.round((expiresAt.getTime() - Date.now()) / 1000)),
    expiresAt: expiresAt.toISOString(),
  };
}
