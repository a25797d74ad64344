/** The bench worker's workflows: the service's own, and the previous shape for the same-run comparison. */
export * from '../../src/workflows';
export { previousShapeWrite } from './previous-shape.workflow';
