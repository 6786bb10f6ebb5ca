import type { Context } from '@opentelemetry/api';
import type { LogRecordProcessor, SdkLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  redactAccountText,
  redactSecretText,
  scrubAttributes,
  type PrivacyOptions,
} from './privacy-rules';

/**
 * Applies the privacy rules to every span as it ends, before the exporters' processors see
 * it (Azure Monitor's own "modify telemetry" pattern: span processors may change a span's
 * attributes in `onEnd`). Span events (exceptions) are scrubbed too.
 */
export class PrivacySpanProcessor implements SpanProcessor {
  constructor(private readonly options: PrivacyOptions) {}

  onStart(_span: Span, _context: Context): void {}

  onEnd(span: ReadableSpan): void {
    scrubAttributes(span.attributes, this.options);
    for (const event of span.events) {
      if (event.attributes !== undefined) scrubAttributes(event.attributes, this.options);
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Applies the privacy rules to every log record as it is emitted (a processor may change a
 * record during `onEmit`): its body and its attributes.
 */
export class PrivacyLogProcessor implements LogRecordProcessor {
  constructor(private readonly options: PrivacyOptions) {}

  onEmit(record: SdkLogRecord): void {
    if (typeof record.body === 'string') {
      record.setBody(redactAccountText(redactSecretText(record.body), this.options));
    }
    scrubAttributes(record.attributes, this.options);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
