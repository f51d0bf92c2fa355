/**
 * The application roles (docs/roles.md "Roles"), one list for the platform in `@mm/contracts`:
 * auth stores them on local users and signs them into access tokens; the orchestrator maps them to
 * permissions. CUSTOMER is the end user of the mobile app.
 */
export { APP_ROLES as ROLES, type AppRole as Role } from '@mm/contracts';
