package io.pg2lite.connect.kafka.hanging;

import io.pg2lite.connect.failure.Failures;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * What a {@link HangingTransactionWatch} logs: each hanging transaction once at WARN, with the
 * runbook step; its end and its abort at INFO; a refused ACL once at WARN, naming the ACL; any
 * other failed look at INFO at most once a minute (DEBUG in between), never as a finding.
 */
final class WatchLog {
  static final long QUIET_MS = 60_000;
  private final Logger log;
  private final HangingTransactionWatch.Settings settings;
  private final LongSupplier clockMs;
  private final Set<String> aclsWarned = new HashSet<>();
  private long failureLoggedAt = Long.MIN_VALUE;

  WatchLog(Logger log, HangingTransactionWatch.Settings settings, LongSupplier clockMs) {
    this.log = log;
    this.settings = settings;
    this.clockMs = clockMs;
  }

  void hanging(HangingTransaction h) {
    long idleS = Math.max(0, clockMs.getAsLong() - h.lastWriteMs()) / 1000;
    log.warn("Hanging Kafka transaction on {}, seen by the {}: producer {} epoch {} has held it open since offset {} "
        + "and has not written for {} s, but {}. Nothing will end it: every read_committed reader of {} waits behind "
        + "it (a source connector whose offsets it holds cannot start; a sink reading it stalls). Runbook: {}. To "
        + "abort it: {}{}", h.partition(), settings.name(), h.producerId(), h.producerEpoch(), h.startOffset(), idleS,
        h.coordinator(), h.partition(), Runbook.SECTION, Runbook.abortCommand(settings.bootstrapServers(), h),
        settings.abort() ? " (" + settings.abortSetting() + "=true: aborting it now)"
            : " (or set " + settings.abortSetting() + "=true)");
  }

  void ended(HangingTransaction h) {
    log.info("The hanging Kafka transaction on {} (producer {}, open since offset {}) is no longer open: someone "
        + "aborted it, or its coordinator completed it", h.partition(), h.producerId(), h.startOffset());
  }

  void aborted(HangingTransaction h) {
    log.info("Aborted the hanging Kafka transaction on {} (producer {} epoch {}, open since offset {}), as {}=true: "
        + "its records are dropped for read_committed readers and {} moves on", h.partition(), h.producerId(),
        h.producerEpoch(), h.startOffset(), settings.abortSetting(), h.partition());
  }

  void lookFailed(Throwable e) {
    if (e instanceof MissingAclException m) {
      refused(m, "look for hanging Kafka transactions", "a hanging transaction there goes unreported");
    } else {
      failed("Cannot look for hanging Kafka transactions now (" + settings.name() + "); nothing is reported from "
          + "this look, the next is in " + HangingTransactionWatch.INTERVAL.toSeconds() + " s: {}", e);
    }
  }

  void abortFailed(HangingTransaction h, Exception e) {
    if (e instanceof MissingAclException m) {
      refused(m, "abort hanging Kafka transactions (" + settings.abortSetting() + "=true)",
          "they are reported but not aborted");
    } else {
      failed("Cannot abort the hanging Kafka transaction on " + h.partition() + " now (" + settings.name()
          + "); trying again at the next look: {}", e);
    }
  }

  private void refused(MissingAclException e, String what, String meanwhile) {
    if (aclsWarned.add(e.acl())) {
      log.warn("pg2lite ({}) may not {}: Kafka refused it for want of an ACL. Grant {} to this client's principal; "
          + "until then {} ({}, ACLs). Kafka said: {}", settings.name(), what, e.acl(), meanwhile, Runbook.SECTION,
          Failures.rootMessage(e));
    }
  }

  private void failed(String message, Throwable e) {
    long now = clockMs.getAsLong();
    if (failureLoggedAt == Long.MIN_VALUE || now - failureLoggedAt >= QUIET_MS) {
      failureLoggedAt = now;
      log.info(message, Failures.rootMessage(e));
    } else {
      log.debug(message, Failures.rootMessage(e));
    }
  }
}
