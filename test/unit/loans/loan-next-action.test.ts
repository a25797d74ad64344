/** The loan workflow's `nextAction` (docs/loans.md): what it will really do next, and when. */
import { nextActionOf } from '../../../src/domain/loan-lifecycle';

const maturityAt = '2026-03-02T14:00:00.000Z';
const graceMs = 48 * 3600 * 1000;

describe("a loan's next action", () => {
  it('marks an OPEN loan OVERDUE at maturity when its strategy does not roll over', () => {
    expect(nextActionOf({ status: 'OPEN', maturityAt, graceMs, rollover: false })).toEqual({ action: 'MARK_OVERDUE', at: maturityAt, status: 'OPEN' });
    // A run started before the workflow knew its strategy's rollover: what it did then.
    expect(nextActionOf({ status: 'OPEN', maturityAt, graceMs })).toEqual({ action: 'MARK_OVERDUE', at: maturityAt, status: 'OPEN' });
  });

  it("rolls an OPEN loan over at maturity when its strategy says so (the workflow's rollover, never OVERDUE)", () => {
    expect(nextActionOf({ status: 'OPEN', maturityAt, graceMs, rollover: true })).toEqual({ action: 'ROLLOVER', at: maturityAt, status: 'OPEN' });
  });

  it('liquidates an OVERDUE loan once the grace period is over, whatever its strategy', () => {
    for (const rollover of [true, false])
      expect(nextActionOf({ status: 'OVERDUE', maturityAt, graceMs, rollover })).toEqual({
        action: 'LIQUIDATE',
        at: '2026-03-04T14:00:00.000Z',
        status: 'OVERDUE',
      });
  });

  it('does nothing more for a settled loan', () => {
    for (const status of ['REPAID', 'LIQUIDATED', 'CLOSED'] as const)
      expect(nextActionOf({ status, maturityAt, graceMs, rollover: true })).toEqual({ action: 'NONE', at: null, status });
  });
});
