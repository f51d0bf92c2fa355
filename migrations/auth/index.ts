import type { MigrationClass } from '../types';
import { AuthInit1763900000000 } from './1763900000000-auth-init';
import { ApplicationRoles1764000000000 } from './1764000000000-application-roles';
import { IntentBoundOtp1764600000000 } from './1764600000000-intent-bound-otp';
import { UnknownPhoneLockout1764700000000 } from './1764700000000-unknown-phone-lockout';
import { OtpCodesExpiryIndex1764800000000 } from './1764800000000-otp-codes-expiry-index';
import { RuntimeRolePrivileges1765200000000 } from './1765200000000-runtime-role-privileges';
import { StaffSecondFactor1765500000000 } from './1765500000000-staff-second-factor';
import { PinChecksInFlight1765601800000 } from './1765601800000-pin-checks-in-flight';
import { PinSetAt1765601900000 } from './1765601900000-pin-set-at';

/** Migrations of the `auth` schema, in order. Append new ones; never edit a shipped one. */
export const authMigrations: MigrationClass[] = [
  AuthInit1763900000000,
  ApplicationRoles1764000000000,
  IntentBoundOtp1764600000000,
  UnknownPhoneLockout1764700000000,
  OtpCodesExpiryIndex1764800000000,
  RuntimeRolePrivileges1765200000000,
  StaffSecondFactor1765500000000,
  PinChecksInFlight1765601800000,
  PinSetAt1765601900000,
];
