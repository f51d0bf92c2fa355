// Transitional: the intents controller still imports from here until its next edit; remove once it
// imports ../common/api-errors.
export { ApiErrors } from '../common/api-errors';
