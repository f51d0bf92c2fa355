/** The answer of login and refresh (spec 3: `token`, `refreshToken`). */
export interface TokenPair {
  token: string;
  refreshToken: string;
  tokenType: 'Bearer';
  /** seconds until the access token expires */
  expiresIn: number;
  expiresAt: string;
}
