import type { WorkflowState } from '../state/index.js';
import { passOf } from './step-position.js';
import type { WorkflowEvent } from './workflow-events.js';

/** `step.started` of the state's current pass. */
export function stepStartedEvent(state: WorkflowState): WorkflowEvent {
  const pass = passOf(state);
  return {
    level: 'INFO',
    event: 'step.started',
    fields: {
      step: state.step,
      step_type: state.stepType,
      step_number: state.step_index + 1,
      ...(pass === undefined ? {} : { pass }),
      ...(state.task === undefined ? {} : { total_passes: state.task.total }),
    },
  };
}
