import { runMain, startDefinedApp } from '@mm/platform';
import { orchestratorApp } from './orchestrator.app';

runMain(() => startDefinedApp(orchestratorApp));
