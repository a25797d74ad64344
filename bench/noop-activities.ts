/**
 * Activities of the same names and shapes as the real ones, doing nothing: the engine's cost alone.
 * The workflow tests' canned fakes, unrecorded (one list of stubs: the type of the real activities
 * makes a new activity without a stub a compile error).
 */
export { cannedActivities as noopActivities } from '../test/support/workflow-fakes/fake-activities';
