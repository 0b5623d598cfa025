package io.stockade.platform.warmup;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * Whether the JIT has settled: its compilers spent less than a share of the last window compiling.
 * Under the warm-up's load a cold JVM compiles without pause for tens of seconds; once the hot path
 * is compiled, it compiles little. Told the time and the compilers' total time, sample by sample;
 * without a JIT whose compilation time can be read, it never settles.
 */
final class CompilerSettling {

  private record Sample(long nanos, long compilingMillis) {}

  private final long windowNanos;
  private final double share;
  private final LongSupplier compilingMillis;
  private final Deque<Sample> samples = new ArrayDeque<>();

  /**
   * @param window how far back a sample looks
   * @param share the share of the window, across every compiler thread, below which the JIT has
   *     settled; 0 or less: it never settles
   * @param compilingMillis the compilers' total time so far, or a negative value when unknown
   */
  CompilerSettling(Duration window, double share, LongSupplier compilingMillis) {
    this.windowNanos = window.toNanos();
    this.share = share;
    this.compilingMillis = compilingMillis;
  }

  /** This JVM's compilers ({@link CompilationMXBean#getTotalCompilationTime()}). */
  static LongSupplier jvmCompilers() {
    CompilationMXBean compilers = ManagementFactory.getCompilationMXBean();
    if (compilers == null || !compilers.isCompilationTimeMonitoringSupported()) {
      return () -> -1;
    }
    return compilers::getTotalCompilationTime;
  }

  /**
   * Takes a sample at {@code nanos} (a monotonic time).
   *
   * @return whether the compilers spent less than the share of the last full window compiling
   */
  boolean settled(long nanos) {
    long compiling = compilingMillis.getAsLong();
    if (compiling < 0) {
      return false;
    }
    samples.addLast(new Sample(nanos, compiling));
    // The window starts at the newest sample that is at least a window old.
    while (samples.size() > 1 && nanos - second().nanos() >= windowNanos) {
      samples.removeFirst();
    }
    Sample oldest = samples.peekFirst();
    long span = nanos - oldest.nanos();
    if (share <= 0 || span < windowNanos) {
      return false;
    }
    return (compiling - oldest.compilingMillis()) * 1_000_000.0 < share * span;
  }

  private Sample second() {
    Sample first = samples.removeFirst();
    Sample second = samples.peekFirst();
    samples.addFirst(first);
    return second;
  }

  /** The compilers' time in the window at the last sample (0 when unknown), for the log. */
  long lastWindowMillis() {
    return samples.isEmpty()
        ? 0
        : samples.peekLast().compilingMillis() - samples.peekFirst().compilingMillis();
  }
}
