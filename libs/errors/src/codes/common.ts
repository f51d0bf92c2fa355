/** Generic request and service-to-service failures (every service). Never rename or re-status a shipped code; append new ones. */
export const COMMON_ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'The request is invalid' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON' },
  BAD_REQUEST: { status: 400, message: 'The request cannot be processed' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required' },
  FORBIDDEN: { status: 403, message: 'You are not allowed to do this' },
  NOT_FOUND: { status: 404, message: 'Resource not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed on this route' },
  CONFLICT: { status: 409, message: 'The resource is in a state that does not allow this operation' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred' },
  NOT_IMPLEMENTED: { status: 501, message: 'This operation is not available yet' },
  UPSTREAM_UNAVAILABLE: { status: 502, message: 'An upstream service is unavailable' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is temporarily unavailable' },
  UPSTREAM_TIMEOUT: { status: 504, message: 'An upstream service did not answer in time' },
  INVALID_SERVICE_CREDENTIALS: { status: 401, message: 'Missing or invalid service credential' },
  // The edges of HTTP, refused before any route runs, still with the platform body
  // (docs/architecture.md "Processes and ports").
  JSON_TOO_DEEP: { status: 400, message: 'The request body is nested too deeply' },
  FORBIDDEN_JSON_KEY: { status: 400, message: 'The request body contains a forbidden key (__proto__ or constructor.prototype)' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time' },
  EXPECTATION_FAILED: { status: 417, message: 'The only Expect header this server meets is Expect: 100-continue' },
} as const satisfies Record<string, { status: number; message: string }>;
