import { Injectable } from '@nestjs/common';

/**
 * The reports' idea of now: which day is over, when a filing is due, whether a given time is in the
 * future. One object so a test can move it (a day that is "yesterday", a filing 49 hours old)
 * without touching the database's or the ledger's clocks.
 */
@Injectable()
export class ReportClock {
  now(): Date {
    return new Date();
  }
}
