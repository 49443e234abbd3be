/**
 * Reading Temporal workflow histories in tests: which activities a run scheduled on the task queue, and which
 * it ran as local activities. The SDK's core records each local activity as a `core_local_activity` marker
 * whose `data` payload is JSON naming the activity type.
 */
import type { temporal as TemporalProto } from '@temporalio/proto';

type HistoryEvent = TemporalProto.api.history.v1.IHistoryEvent;

export interface LocalActivityMarker {
  type: string;
  /** When the marker was recorded (the workflow task that ran the activity completed), in epoch ms. */
  recordedAt: number;
}

/** The local activities a history recorded, in order. */
export function localActivityMarkers(events: readonly HistoryEvent[]): LocalActivityMarker[] {
  return events
    .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((event) => {
      const payload = event.markerRecordedEventAttributes!.details!.data!.payloads![0]!;
      const data = JSON.parse(Buffer.from(payload.data!).toString('utf8')) as { activity_type: string };
      const time = event.eventTime!;
      return {
        type: data.activity_type,
        recordedAt: Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6),
      };
    });
}

/** The activity types a history scheduled on the task queue, in order. */
export function scheduledActivities(events: readonly HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

/**
 * The starts of the first activity of `activityType` a history scheduled: one event per attempt that was
 * recorded as started (a retry after a worker died shows as one start whose `attempt` is above 1).
 */
export function activityStarts(events: readonly HistoryEvent[], activityType: string): HistoryEvent[] {
  const scheduled = events.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === activityType,
  );
  if (!scheduled) return [];
  return events.filter(
    (event) =>
      event.activityTaskStartedEventAttributes !== undefined &&
      event.activityTaskStartedEventAttributes !== null &&
      String(event.activityTaskStartedEventAttributes.scheduledEventId) === String(scheduled.eventId),
  );
}
