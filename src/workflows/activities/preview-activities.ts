import type { RequestPlan, RequestPreviewInput } from '../../domain/request-preview';
import { runActivity, type ActivityResult } from '../activity-result';
import { runRequestPreview } from '../request-preview-run';
import type { ServicesProvider } from '../workflow-services';

/** The preview job's activity input: the request to plan, and the orchestration's time. */
export interface PreviewRequestInput {
  request: RequestPreviewInput;
  at: string;
}

/** Activities of previews: reads only, never a write (issue 14, Preview). */
export function previewActivities(services: ServicesProvider) {
  return {
    /** A request's plan, when the API handed it to a job because its reads were slow. */
    async previewRequest(input: PreviewRequestInput): Promise<ActivityResult<RequestPlan>> {
      return runActivity('previewRequest', services, () =>
        runRequestPreview(services, input.request, Date.parse(input.at)),
      );
    },
  };
}
