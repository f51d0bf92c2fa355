import { runMain, startDefinedApp } from '@mm/platform';
import { webhookDispatcherApp } from './webhook-dispatcher.app';

runMain(() => startDefinedApp(webhookDispatcherApp));
