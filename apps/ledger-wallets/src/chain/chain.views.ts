import type { LedgerChainVerificationView, SameShape } from '@mm/contracts';
import type { ChainVerificationResult } from './chain-verifier.service';

/* What the verifier builds is the documented shape the orchestrator relays (libs/contracts ledger-chain.ts). */
const resultDocumented: SameShape<ChainVerificationResult, LedgerChainVerificationView> = true;
void resultDocumented;
