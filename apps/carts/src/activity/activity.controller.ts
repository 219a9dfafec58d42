import { Controller } from '@nestjs/common';
import { type Caller, CurrentCaller, Endpoint, Input, type InputOf } from '@mw/platform';
import { activityOwner } from './activity-access';
import type { ActivityPage } from './activity-view';
import { listActivity } from './activity.endpoints';
import { ActivityService } from './activity.service';

@Controller()
export class ActivityController {
  constructor(private readonly activity: ActivityService) {}

  @Endpoint(listActivity)
  list(@Input() input: InputOf<typeof listActivity>, @CurrentCaller() caller: Caller): Promise<ActivityPage> {
    return this.activity.page(activityOwner(caller, input.query.user_id), input.query);
  }
}
