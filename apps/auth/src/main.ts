import { runMain, startDefinedApp } from '@mm/platform';
import { authApp } from './auth.app';

runMain(() => startDefinedApp(authApp));
