/**
 * Staff sign-in in tests: the harnesses give auth this secret for the bootstrap administrator
 * (BOOTSTRAP_ADMIN_TOTP_SECRET) and compute its codes; staff created during a test enrol at their
 * first sign-in through the harness, which remembers their secret (tools/staff-sign-in.ts).
 */
export { StaffSignIn, type PostJson, type SignInAnswer } from '../../tools/staff-sign-in';

/** Base32, 160 bits; a test value, known to everyone. */
export const TEST_ADMIN_TOTP_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
