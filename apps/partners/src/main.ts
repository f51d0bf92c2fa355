import { runMain, startDefinedApp } from '@mm/platform';
import { partnersApp } from './partners.app';

runMain(() => startDefinedApp(partnersApp));
